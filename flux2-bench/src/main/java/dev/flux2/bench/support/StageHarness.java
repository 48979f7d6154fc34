package dev.flux2.bench.support;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.BackendAssembly;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.options.CpuTuned;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.nio.file.Path;

/**
 * The ONNX backend's stage plumbing for one bundle, assembled by the backend's own {@link BackendAssembly} (CPU,
 * RESIDENT sessions so that a benchmark measures runs, not session creation; SEQUENTIAL session cost is in the
 * end-to-end profile). Owns the session cache and the tokenizer.
 */
public final class StageHarness implements AutoCloseable {
    /** The prompt every stage benchmark encodes. */
    public static final String PROMPT = "a red fox in the snow, golden hour, 35 mm photograph";

    private final OnnxBundle bundle;
    private final SessionCache sessions;
    private final StageResources resources;
    private final Qwen3PromptTokenizer tokenizer;
    private final BenchStageContext context = new BenchStageContext();

    private StageHarness(Path directory, CpuTuned tuning, int threads) {
        this.bundle = OnnxBundle.load(directory);
        // As the backend assembles them (BackendAssembly: environment, providers, derived graphs, specs), on the CPU,
        // RESIDENT.
        BackendAssembly assembly = BackendAssembly.assemble(
                bundle, OnnxOptions.builder().threads(threads).cpuTuned(tuning).build(), MemoryPolicy.RESIDENT);
        this.sessions = assembly.sessions();
        this.resources = assembly.resources();
        Qwen3PromptTokenizer t = null;
        try {
            t = Qwen3PromptTokenizer.load(
                    directory.resolve(bundle.config().text().tokenizerDir()),
                    bundle.config().text().sequenceLength());
        } finally {
            if (t == null) {
                sessions.close();
            }
        }
        this.tokenizer = t;
    }

    /**
     * @param directory a bundle directory
     * @return the harness; the caller closes it
     */
    public static StageHarness open(Path directory) {
        return new StageHarness(directory, CpuTuned.OFF, 0);
    }

    /**
     * @param directory a bundle directory
     * @param tuning the backend option {@code cpu_tuned}: the text encoder and transformer graphs derived once, beside
     *     the bundle, by the backend's plan; {@link CpuTuned#OFF} for the bundle's own graphs
     * @param threads intra-op threads per run, 0 for ONNX Runtime's choice
     * @return the harness; the caller closes it
     */
    public static StageHarness open(Path directory, CpuTuned tuning, int threads) {
        return new StageHarness(directory, tuning, threads);
    }

    /** @return the stage resources (environment, sessions, config, checked I/O, session specs) */
    public StageResources resources() {
        return resources;
    }

    /** @return the context every run of this harness reports to */
    public BenchStageContext context() {
        return context;
    }

    /** @return {@link #PROMPT}, tokenized */
    public TokenizedPrompt prompt() {
        return tokenizer.tokenize(PROMPT);
    }

    /**
     * @param size image side in pixels, or 0 for the bundle's default size
     * @return {width, height} in pixels
     */
    public int[] imageSize(int size) {
        if (size > 0) {
            return new int[] {size, size};
        }
        return new int[] {
            bundle.config().defaults().width(), bundle.config().defaults().height()
        };
    }

    /** Closes every session, then the tokenizer. */
    @Override
    public void close() {
        try {
            sessions.close();
        } finally {
            tokenizer.close();
        }
    }
}
