package dev.flux2.bench.profile;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.runtime.GlobalThreadPool;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Resident memory over repeated build/generate/close cycles of a pipeline on a synthetic bundle (issue #24, "40
 * cycles grow RSS"): prints VmRSS after a {@code System.gc()} at cycle 1 and every tenth cycle.
 *
 * <pre>
 * java -Xmx256m -cp … dev.flux2.bench.profile.PipelineCycles [cycles] [--per-session-pools]
 * </pre>
 *
 * <p>{@code --per-session-pools} first creates the ONNX Runtime environment with a shared pool of settings no
 * pipeline here asks for, so every session gets a thread pool of its own: the behaviour before
 * {@link GlobalThreadPool}, for comparison in the same build.
 */
public final class PipelineCycles {
    private PipelineCycles() {}

    /**
     * @param args the number of cycles (default 40), optionally {@code --per-session-pools}
     * @throws IOException when the bundle cannot be written
     */
    public static void main(String[] args) throws IOException {
        int cycles = 40;
        boolean perSession = false;
        for (String a : args) {
            if (a.equals("--per-session-pools")) {
                perSession = true;
            } else {
                cycles = Integer.parseInt(a);
            }
        }
        if (perSession) {
            OrtNativeLibrary.environment(OrtNativeLibrary.Choice.ANY, new GlobalThreadPool(7, false));
        }
        Path dir = Files.createTempDirectory("flux2-cycles");
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().transformerPaddingBytes(64L << 20).build(), dir.resolve("bundle"));
        System.out.printf(
                Locale.ROOT,
                "cycles=%d pools=%s MALLOC_ARENA_MAX=%s%n",
                cycles,
                perSession ? "per-session" : "shared",
                System.getenv().getOrDefault("MALLOC_ARENA_MAX", "unset"));
        for (int i = 1; i <= cycles; i++) {
            try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                    .model(bundle.directory())
                    .memoryPolicy(MemoryPolicy.RESIDENT)
                    .build()) {
                pipeline.generate(
                        GenerationRequest.builder("a red fox " + i).seed(i).build());
            }
            if (i == 1 || i % 10 == 0) {
                System.gc();
                System.out.printf(Locale.ROOT, "cycle %d: VmRSS %d MiB%n", i, ProcStatus.rssBytes() >> 20);
            }
        }
    }
}
