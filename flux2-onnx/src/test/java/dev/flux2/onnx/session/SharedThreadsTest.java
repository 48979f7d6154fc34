package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.flux2.onnx.TestStageContext;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.runtime.GlobalThreadPool;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Threads reused across pipelines (issue #24, RSS growth over build/close cycles): the environment's shared intra-op
 * pool, and the loader threads.
 */
class SharedThreadsTest {
    @TempDir
    Path dir;

    private static float[] run(OrtEnvironment env, ManagedSession session, float[] x) throws Exception {
        try (OnnxTensor in = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), new long[] {1, x.length});
                OrtSession.Result r = session.run(
                        new RunCall(Map.of("x", in), Set.of("y"), Map.of(), "doubler"), new TestStageContext())) {
            float[] y = new float[x.length];
            ((OnnxTensor) r.get(0)).getFloatBuffer().get(y);
            return y;
        }
    }

    @Test
    void sessionsWithThePoolsSettingsRunOnItAndOthersOnTheirOwn() throws Exception {
        // The environment is one per JVM, and test classes share the JVM: the pool is the one of whichever call
        // created it (or none, when a test created it through ONNX Runtime directly). Both cases are checked.
        OrtEnvironment env = OrtNativeLibrary.environment(OrtNativeLibrary.Choice.ANY, new GlobalThreadPool(2, true));
        Optional<GlobalThreadPool> pool = OrtNativeLibrary.threadPool();
        assertSame(env, OrtNativeLibrary.environment(OrtNativeLibrary.Choice.ANY, new GlobalThreadPool(3, false)));
        assertEquals(pool, OrtNativeLibrary.threadPool(), "made once, when the environment is created");
        int threads = pool.map(GlobalThreadPool::intraOpThreads).orElse(2);
        boolean spinning = pool.map(GlobalThreadPool::spinning).orElse(true);
        SessionSpec spec = new SessionSpec(
                "doubler", TestGraphs.doubler(dir.resolve("doubler.onnx")), Map.of("n", 3L), OptimizationLevel.ALL);
        SessionFactory same = new SessionFactory(
                env,
                ExecutionProviders.cpuOnly(),
                threads,
                spinning ? Map.of() : Map.of("session.intra_op.allow_spinning", "0"));
        SessionFactory otherCount = new SessionFactory(env, ExecutionProviders.cpuOnly(), threads + 1);
        SessionFactory otherSpin = new SessionFactory(
                env,
                ExecutionProviders.cpuOnly(),
                threads,
                spinning ? Map.of("session.intra_op.allow_spinning", "0") : Map.of());
        assertEquals(pool.isPresent(), same.sharesThreads(), "the pool's settings share it, when there is one");
        assertFalse(otherCount.sharesThreads(), "another thread count has threads of its own");
        assertFalse(otherSpin.sharesThreads(), "another spinning setting has threads of its own");
        // ONNX Runtime refuses a session without threads of its own in an environment without a pool: each opens
        // and computes.
        for (SessionFactory f : new SessionFactory[] {same, otherCount, otherSpin}) {
            try (ManagedSession s = f.open(spec)) {
                assertArrayEquals(new float[] {2, 4, 6}, run(env, s, new float[] {1, 2, 3}));
            }
        }
    }

    @Test
    void theSharedPoolServesExactlyItsSettings() {
        GlobalThreadPool pool = new GlobalThreadPool(4, true);
        assertTrue(pool.serves(4, true));
        assertFalse(pool.serves(0, true), "the runtime's default count is not 4 threads");
        assertFalse(pool.serves(4, false));
        assertTrue(GlobalThreadPool.DEFAULT.serves(0, true));
    }

    @Test
    void loadsRunOnAReusedThreadNamedForTheLoad() throws Exception {
        AtomicReference<Thread> first = new AtomicReference<>();
        AtomicReference<String> name = new AtomicReference<>();
        AtomicReference<ClassLoader> loader = new AtomicReference<>();
        ClassLoader callers =
                new java.net.URLClassLoader(new java.net.URL[0], getClass().getClassLoader());
        CountDownLatch one = new CountDownLatch(1);
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(callers);
        try {
            LoaderThreads.run("flux2-open-test", () -> {
                first.set(Thread.currentThread());
                name.set(Thread.currentThread().getName());
                loader.set(Thread.currentThread().getContextClassLoader());
                one.countDown();
            });
        } finally {
            Thread.currentThread().setContextClassLoader(before);
        }
        assertTrue(one.await(10, TimeUnit.SECONDS));
        assertEquals("flux2-open-test", name.get());
        assertSame(callers, loader.get(), "the load runs with its caller's context class loader");
        // The thread is idle once its name is restored.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!first.get().getName().startsWith("flux2-loader-") && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        AtomicReference<Thread> second = new AtomicReference<>();
        CountDownLatch two = new CountDownLatch(1);
        LoaderThreads.run("flux2-tokenizer-load", () -> {
            second.set(Thread.currentThread());
            two.countDown();
        });
        assertTrue(two.await(10, TimeUnit.SECONDS));
        assertSame(first.get(), second.get(), "the idle loader thread (and its malloc arena) is reused");

        // A load while another runs gets a thread of its own: background loads never wait for each other.
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(1);
        AtomicReference<Thread> busy = new AtomicReference<>();
        LoaderThreads.run("flux2-open-a", () -> {
            busy.set(Thread.currentThread());
            blocked.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blocked.await(10, TimeUnit.SECONDS));
        AtomicReference<Thread> beside = new AtomicReference<>();
        CountDownLatch three = new CountDownLatch(1);
        LoaderThreads.run("flux2-open-b", () -> {
            beside.set(Thread.currentThread());
            three.countDown();
        });
        assertTrue(three.await(10, TimeUnit.SECONDS), "the second load waited for the first");
        release.countDown();
        assertNotSame(busy.get(), beside.get());
        assertTrue(first.get().isDaemon());
    }
}
