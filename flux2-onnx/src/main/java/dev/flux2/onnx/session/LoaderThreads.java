package dev.flux2.onnx.session;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The process's threads for background loads (sessions opened ahead, the tokenizer), reused by every pipeline
 * instead of a new thread per load.
 *
 * <p>Why: glibc's malloc gives a thread an arena when it first allocates, and once the process has as many arenas
 * as its limit (8 per core) hands each new thread the next one in turn. A session's weights are allocated by the
 * thread that creates it, so with a new thread per load each build of a pipeline put its weights in another arena,
 * and after they were freed every arena kept its share: 40 build/generate/close cycles grew the resident size from
 * 1.06 to 1.49 GB (issue #24, docs/hostile-input.md §5). A thread kept for the next load keeps its arena, whose freed
 * memory the next load reuses. Idle threads end after {@value #IDLE_MINUTES} minutes.
 */
public final class LoaderThreads {
    private static final long IDLE_MINUTES = 10;
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, IDLE_MINUTES, TimeUnit.MINUTES, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "flux2-loader-" + COUNT.incrementAndGet());
                t.setDaemon(true);
                return t;
            });

    private LoaderThreads() {}

    /**
     * Runs a load on an idle loader thread, or on a new one when none is idle.
     *
     * @param name what the thread does while it runs the load, shown in thread dumps ({@code flux2-open-vae})
     * @param load the load; it reports its own failures
     * @throws OutOfMemoryError when a new thread is needed and cannot start (a thread limit): the caller says so
     *     ({@link ThreadStartFailure})
     */
    public static void run(String name, Runnable load) {
        // The caller's class loader, as a thread started by the caller would have had (an application server's or
        // Spark's loader of user jars); the first caller's is not kept for later loads.
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        POOL.execute(() -> {
            Thread self = Thread.currentThread();
            String idle = self.getName();
            self.setName(name);
            self.setContextClassLoader(loader);
            try {
                load.run();
            } finally {
                self.setContextClassLoader(null);
                self.setName(idle);
            }
        });
    }
}
