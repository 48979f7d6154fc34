package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InferenceException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.onnx.TestStageContext;
import dev.flux2.onnx.options.OptimizationLevel;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionCacheTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    @TempDir
    Path dir;

    private Path doubler;
    private int baseline;

    @BeforeEach
    void setUp() {
        doubler = TestGraphs.doubler(dir.resolve("doubler.onnx"));
        baseline = OpenSessionCounter.current();
    }

    private SessionCache cache(MemoryPolicy policy) {
        return new SessionCache(new SessionFactory(ENV, ExecutionProviders.cpuOnly(), 1), policy);
    }

    private SessionSpec spec(long n) {
        return new SessionSpec("doubler", doubler, Map.of("n", n), OptimizationLevel.ALL);
    }

    private static float[] run(ManagedSession session, float[] x, TestStageContext context) throws Exception {
        try (OnnxTensor in = OnnxTensor.createTensor(ENV, FloatBuffer.wrap(x), new long[] {1, x.length});
                OrtSession.Result r =
                        session.run(new RunCall(Map.of("x", in), Set.of("y"), Map.of(), "doubler"), context)) {
            float[] y = new float[x.length];
            ((OnnxTensor) r.get(0)).getFloatBuffer().get(y);
            return y;
        }
    }

    @Test
    void sequentialOpensPerLeaseAndClosesOnRelease() throws Exception {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL)) {
            TestStageContext context = new TestStageContext();
            try (SessionLease a = cache.acquire(spec(3));
                    SessionLease b = cache.acquire(spec(3))) {
                assertNotSame(a.session(), b.session());
                assertEquals(baseline + 2, OpenSessionCounter.current());
                assertArrayEquals(new float[] {2, 4, 6}, run(a.session(), new float[] {1, 2, 3}, context));
            }
            assertEquals(baseline, OpenSessionCounter.current());
            assertTrue(context.runtimeNanos.get() > 0, "time inside OrtSession.run is reported");
            assertEquals(0, context.hooks(), "the cancellation hook is unregistered after the run");
        }
    }

    @Test
    void residentReusesAndReplacesPerDimensions() {
        SessionCache cache = cache(MemoryPolicy.RESIDENT);
        ManagedSession first;
        try (SessionLease a = cache.acquire(spec(3))) {
            first = a.session();
        }
        assertEquals(baseline + 1, OpenSessionCounter.current(), "kept after release");
        try (SessionLease again = cache.acquire(spec(3))) {
            assertSame(first, again.session());
            try (SessionLease other = cache.acquire(spec(5))) {
                assertNotSame(first, other.session());
                assertFalse(first.isClosed(), "still leased: not closed under its user");
                assertEquals(baseline + 2, OpenSessionCounter.current());
            }
        }
        assertTrue(first.isClosed(), "replaced and released: closed");
        assertEquals(baseline + 1, OpenSessionCounter.current());
        cache.close();
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
        assertThrows(PipelineClosedException.class, () -> cache.acquire(spec(3)));
    }

    @Test
    void closeReleasesLeasedSessionsAndLaterRunsFailClearly() {
        SessionCache cache = cache(MemoryPolicy.SEQUENTIAL);
        SessionLease lease = cache.acquire(spec(2));
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
        PipelineClosedException e = assertThrows(
                PipelineClosedException.class, () -> run(lease.session(), new float[] {1, 2}, new TestStageContext()));
        assertTrue(e.getMessage().contains("doubler") && e.getMessage().contains("closed"), e.getMessage());
        lease.close();
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void runtimeErrorsNameTheCallAndKeepTheErrorCode() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL);
                SessionLease lease = cache.acquire(spec(3))) {
            // Pinned to n = 3, the session rejects 2 values.
            InferenceException e = assertThrows(
                    InferenceException.class, () -> run(lease.session(), new float[] {1, 2}, new TestStageContext()));
            assertTrue(e.getMessage().startsWith("doubler failed in ONNX Runtime"), e.getMessage());
            assertTrue(e.backendErrorCode().isPresent(), "the OrtErrorCode is kept");
        }
    }

    @Test
    void missingGraphFileFailsToOpenNamingIt() {
        SessionSpec bad = new SessionSpec("vae_encoder", dir.resolve("absent.onnx"), Map.of(), OptimizationLevel.ALL);
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL)) {
            String msg = assertThrows(dev.flux2.api.ModelLoadException.class, () -> cache.acquire(bad))
                    .getMessage();
            assertTrue(msg.contains("vae_encoder (absent.onnx)"), msg);
        }
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void cancellationTerminatesTheRunningCall() throws Exception {
        // Long enough (≈ 0.6 s unloaded) that scheduling noise on a busy machine cannot make an aborted call look
        // slower than a full one.
        Path chain = TestGraphs.matMulChain(dir.resolve("chain.onnx"), 256, 1000);
        SessionSpec spec = new SessionSpec("chain", chain, Map.of(), OptimizationLevel.DISABLED);
        float[] x = new float[256 * 256];
        java.util.Arrays.fill(x, 0.5f);
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL);
                SessionLease lease = cache.acquire(spec);
                OnnxTensor in = OnnxTensor.createTensor(ENV, FloatBuffer.wrap(x), new long[] {256, 256})) {
            RunCall call = new RunCall(Map.of("x", in), Set.of("y"), Map.of(), "chain");
            TestStageContext uncancelled = new TestStageContext();
            long start = System.nanoTime();
            lease.session().run(call, uncancelled).close();
            long full = System.nanoTime() - start;

            TestStageContext context = new TestStageContext();
            Thread canceller = new Thread(() -> {
                try {
                    Thread.sleep(Math.max(1, full / 1_000_000 / 10));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                context.cancel();
            });
            canceller.start();
            start = System.nanoTime();
            GenerationCancelledException e = assertThrows(
                    GenerationCancelledException.class,
                    () -> lease.session().run(call, context).close());
            long cancelled = System.nanoTime() - start;
            canceller.join();
            assertTrue(e.getMessage().contains("chain was cancelled"), e.getMessage());
            assertTrue(e.getCause() instanceof ai.onnxruntime.OrtException, "aborted inside the runtime call");
            assertTrue(
                    cancelled < full,
                    "terminated after " + cancelled / 1_000_000 + " ms, a full run takes " + full / 1_000_000 + " ms");
            // The terminate flag is per call: the session keeps working.
            lease.session().run(call, new TestStageContext()).close();
        }
    }
}
