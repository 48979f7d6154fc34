package dev.flux2.onnx.runtime;

/**
 * The intra-op thread pool the process's ONNX Runtime environment owns, shared by every session that runs with the
 * same settings ({@code OrtEnvironment.ThreadingOptions}, sessions with {@code disablePerSessionThreads()}).
 *
 * <p>Why: a session with its own pool starts its own threads, and glibc gives each thread that allocates its own
 * malloc arena; memory freed into those arenas mostly stays with the process. Building and closing pipelines
 * repeatedly (a service that reloads, a Spark executor, tests) then grew the resident size by about 15 MiB per cycle
 * (docs/hostile-input.md §5). With one pool the same threads, and their arenas, serve every session.
 *
 * <p>The pool is made once, with the settings of the first pipeline that creates the environment; ONNX Runtime
 * cannot resize it. A later pipeline with other settings (another {@code threads}, {@code allow_spinning=false})
 * gets a pool of its own per session, as before.
 *
 * @param intraOpThreads threads of the pool, 0 for ONNX Runtime's default (one per physical core)
 * @param spinning whether its idle threads spin waiting for work (ONNX Runtime's default: yes)
 */
public record GlobalThreadPool(int intraOpThreads, boolean spinning) {
    /** ONNX Runtime's defaults: one thread per physical core, spinning. */
    public static final GlobalThreadPool DEFAULT = new GlobalThreadPool(0, true);

    /** Checks the thread count. */
    public GlobalThreadPool {
        if (intraOpThreads < 0) {
            throw new IllegalArgumentException("intraOpThreads must be >= 0, got " + intraOpThreads);
        }
    }

    /**
     * @param threads the threads a session asks for, 0 for the default
     * @param spin whether it wants spinning threads
     * @return whether this pool runs such a session exactly as a pool of its own would
     */
    public boolean serves(int threads, boolean spin) {
        return threads == intraOpThreads && spin == spinning;
    }
}
