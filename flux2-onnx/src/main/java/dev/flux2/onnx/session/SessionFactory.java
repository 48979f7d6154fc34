package dev.flux2.onnx.session;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.runtime.GlobalThreadPool;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens sessions: builds {@link OrtSession.SessionOptions} (optimization level, intra-op threads, pinned symbolic
 * dimensions, execution providers, memory settings), creates the session from the graph's path so ONNX Runtime finds
 * the external data beside it (docs/design-notes.md §5), and hands both to a {@link ManagedSession} that closes the
 * options after the session. Thread-safe.
 *
 * <p>Memory settings, the same for every session (chosen from {@code flux2-bench}'s {@code EndToEndProfile}; the
 * figures are in docs/performance.md, "Memory settings of the ONNX backend"):
 * <ul>
 *   <li><b>Memory-pattern optimisation off</b> ({@code setMemoryPatternOptimization(false)}, as the browser engine
 *       runs this bundle, docs/bundle-format.md §13). With it on, the second run of a session allocates the planned
 *       pattern block beside the arena the first run filled, so RESIDENT memory steps up once and the peak RSS is
 *       higher; with it off memory stays flat over many generations and a transformer step is not slower (the
 *       arena already reuses its blocks).</li>
 *   <li><b>CPU arena on</b> (the runtime's default, set explicitly): turning it off also keeps memory flat but
 *       makes a transformer step markedly slower.</li>
 * </ul>
 *
 * <p>Threads: when the environment's {@link GlobalThreadPool} has the settings this factory asks for (the first
 * pipeline's, so in practice every pipeline of a process that uses one thread setting), every session runs on that
 * pool; otherwise each session has a pool of its own with {@code intraOpThreads} threads.
 */
public final class SessionFactory {
    private static final Logger LOG = LoggerFactory.getLogger(SessionFactory.class);
    /** The session config entry that turns spinning off; a shared pool spins or not for every session. */
    private static final String ALLOW_SPINNING = "session.intra_op.allow_spinning";

    private final OrtEnvironment env;
    private final ExecutionProviders providers;
    private final int intraOpThreads;
    private final boolean sharedThreads;
    private final Map<String, String> configEntries;

    /**
     * @param env the shared environment
     * @param providers the providers every session uses
     * @param intraOpThreads threads per run, 0 for the runtime's default
     */
    public SessionFactory(OrtEnvironment env, ExecutionProviders providers, int intraOpThreads) {
        this(env, providers, intraOpThreads, Map.of());
    }

    /**
     * A factory that also sets ONNX Runtime session config entries on every session (used by {@code flux2-bench}
     * to measure options such as {@code session.disable_prepacking} against the defaults).
     *
     * @param env the shared environment
     * @param providers the providers every session uses
     * @param intraOpThreads threads per run, 0 for the runtime's default
     * @param configEntries extra {@code addConfigEntry} keys and values, applied in key order
     */
    public SessionFactory(
            OrtEnvironment env, ExecutionProviders providers, int intraOpThreads, Map<String, String> configEntries) {
        this.env = Objects.requireNonNull(env, "env");
        this.providers = Objects.requireNonNull(providers, "providers");
        if (intraOpThreads < 0) {
            throw new IllegalArgumentException("intraOpThreads must be >= 0, got " + intraOpThreads);
        }
        this.intraOpThreads = intraOpThreads;
        this.configEntries = Collections.unmodifiableMap(new TreeMap<>(configEntries));
        boolean spinning = !"0".equals(this.configEntries.get(ALLOW_SPINNING));
        this.sharedThreads = OrtNativeLibrary.threadPool()
                .filter(pool -> pool.serves(intraOpThreads, spinning))
                .isPresent();
    }

    /**
     * @return whether the sessions run on the environment's shared thread pool ({@link GlobalThreadPool}); else each
     *     has a pool of its own
     */
    public boolean sharesThreads() {
        return sharedThreads;
    }

    /** @return the providers every session of this factory uses */
    public ExecutionProviders providers() {
        return providers;
    }

    private static byte[] readGraph(SessionSpec spec) {
        try {
            return java.nio.file.Files.readAllBytes(spec.file());
        } catch (java.io.IOException e) {
            throw new ModelLoadException("cannot read graph " + spec.label() + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param spec the graph and its pinned dimensions
     * @return the open session; the caller closes it
     * @throws ModelLoadException when ONNX Runtime cannot create the session (naming the graph and file)
     */
    public ManagedSession open(SessionSpec spec) {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        try {
            options.setOptimizationLevel(ortLevel(spec.optimizationLevel()));
            // Why both: see the class comment and docs/performance.md (RSS growth and step time).
            options.setMemoryPatternOptimization(false);
            options.setCPUArenaAllocator(true);
            if (sharedThreads) {
                // The same threads, and their malloc arenas, for every session (GlobalThreadPool).
                options.disablePerSessionThreads();
            } else if (intraOpThreads > 0) {
                options.setIntraOpNumThreads(intraOpThreads);
            }
            for (Map.Entry<String, String> c : configEntries.entrySet()) {
                options.addConfigEntry(c.getKey(), c.getValue());
            }
            for (Map.Entry<String, Long> d : spec.dimensions().entrySet()) {
                options.setSymbolicDimensionValue(d.getKey(), d.getValue());
            }
            providers.applyTo(options);
            if (spec.dataFolder().isPresent()) {
                // A derived graph in another folder than its shards: loaded from its bytes, with the folder
                // ONNX Runtime resolves external data against (docs/design-notes.md §5).
                options.addConfigEntry(
                        "session.model_external_initializers_file_folder_path",
                        spec.dataFolder().get().toString());
            }
            byte[] bytes = spec.dataFolder().isPresent() ? readGraph(spec) : null;
            long start = System.nanoTime();
            OrtSession session;
            DeviceGate gate = providers.gate();
            try {
                // On a device provider no other ONNX Runtime call may overlap the creation (DeviceGate).
                session = gate.call(() -> bytes != null
                        ? env.createSession(bytes, options)
                        : env.createSession(spec.file().toString(), options));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ModelLoadException("opening " + spec.label() + " was interrupted while waiting for the"
                        + " device " + providers.describe());
            } finally {
                SessionLifecycleClock.created(System.nanoTime() - start);
            }
            LOG.debug(
                    "opened session {} with dimensions {} in {} ms",
                    spec.label(),
                    spec.dimensions(),
                    (System.nanoTime() - start) / 1_000_000);
            return new ManagedSession(spec, session, options, providers);
        } catch (OrtException e) {
            options.close();
            throw new ModelLoadException(
                    "cannot open graph " + spec.label() + " with ONNX Runtime on " + providers.describe() + " ("
                            + e.getCode() + "): " + e.getMessage(),
                    e);
        } catch (RuntimeException e) {
            options.close();
            throw e;
        }
    }

    private static OrtSession.SessionOptions.OptLevel ortLevel(OptimizationLevel level) {
        return switch (level) {
            case DISABLED -> OrtSession.SessionOptions.OptLevel.NO_OPT;
            case BASIC -> OrtSession.SessionOptions.OptLevel.BASIC_OPT;
            case EXTENDED -> OrtSession.SessionOptions.OptLevel.EXTENDED_OPT;
            case LAYOUT -> OrtSession.SessionOptions.OptLevel.LAYOUT_OPT;
            case ALL -> OrtSession.SessionOptions.OptLevel.ALL_OPT;
        };
    }
}
