package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtEnvironment;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SEQUENTIAL's kept sessions and sessions opened ahead ({@link SequentialBudget}, {@link SessionCache#prefetch}). */
class SessionPrefetchTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    private Path doubler;
    private int baseline;

    @BeforeEach
    void setUp() {
        doubler = TestGraphs.doubler(dir.resolve("doubler.onnx"));
        baseline = OpenSessionCounter.current();
    }

    /** A bundle whose largest graph weighs 1 GiB (peak 1.3 GiB) on a machine with plenty of memory. */
    private static SequentialBudget roomy() {
        return new SequentialBudget((long) (1.3 * GIB), GIB, () -> 64 * GIB, 2 * GIB);
    }

    private SessionCache cache(MemoryPolicy policy, SequentialBudget budget) {
        return new SessionCache(new SessionFactory(ENV, ExecutionProviders.cpuOnly(), 1), policy, budget);
    }

    private SessionSpec spec(String key, long n, long weightBytes) {
        return new SessionSpec(key, doubler, Map.of("n", n), OptimizationLevel.ALL, weightBytes);
    }

    @Test
    void budgetKeepsSmallGraphsButNeverTheLargest() {
        SequentialBudget b = roomy();
        assertTrue(b.mayKeep(100 * MIB, 0));
        assertFalse(b.mayKeep(100 * MIB, 200 * MIB), "kept graphs together stay within 256 MiB");
        assertFalse(b.mayKeep(200 * MIB, 0), "larger than the small-graph threshold");
        assertFalse(new SequentialBudget(GIB, 100 * MIB, () -> 64 * GIB, 0).mayKeep(100 * MIB, 0), "the largest");
        assertFalse(SequentialBudget.NONE.mayKeep(MIB, 0));
        assertFalse(b.mayKeep(0, 0), "unknown weights are not kept");
    }

    @Test
    void budgetPrefetchesOnlyWithinTheSequentialPeakAndTheMemoryAvailable() {
        SequentialBudget b = roomy();
        // The VAE (100 MiB) while the 1 GiB transformer is held (settled 0.65 GiB): within 1.3 GiB + 300 MiB.
        assertTrue(b.mayPrefetch((long) (0.65 * GIB), 100 * MIB));
        // The transformer (1 GiB, peak 1.3 GiB) while a 1 GiB text encoder is created: both peaks do not fit.
        assertFalse(b.mayPrefetch(SequentialBudget.creationPeak(GIB), GIB));
        // Beside a miniature text encoder it fits.
        assertTrue(b.mayPrefetch(SequentialBudget.creationPeak(MIB), GIB));
        // Not when the machine has no room for it right now.
        assertFalse(new SequentialBudget((long) (1.3 * GIB), GIB, () -> 2 * GIB, 2 * GIB).mayPrefetch(0, 100 * MIB));
        assertFalse(SequentialBudget.NONE.mayPrefetch(0, MIB));
    }

    @Test
    void sequentialKeepsASmallSessionAcrossLeasesUntilClose() {
        SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy());
        ManagedSession first;
        try (SessionLease a = cache.acquire(spec("vae", 3, MIB))) {
            first = a.session();
        }
        assertEquals(baseline + 1, OpenSessionCounter.current(), "kept after its lease");
        try (SessionLease b = cache.acquire(spec("vae", 3, MIB))) {
            assertSame(first, b.session());
        }
        try (SessionLease big = cache.acquire(spec("transformer", 3, GIB))) {
            assertNotSame(first, big.session());
        }
        assertEquals(baseline + 1, OpenSessionCounter.current(), "the largest graph is closed with its lease");
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void aPrefetchedSessionIsTheOneTheStageTakes() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            SessionSpec transformer = spec("transformer", 3, GIB);
            try (SessionCache.Prefetch ahead = cache.prefetch(transformer, MIB)) {
                assertNotSame(SessionCache.Prefetch.NONE, ahead);
                try (SessionLease lease = cache.acquire(transformer)) {
                    assertEquals(baseline + 1, OpenSessionCounter.current(), "no second session was opened");
                    assertEquals(1, cache.openSessions());
                    assertEquals(transformer, lease.session().spec());
                }
            }
            assertEquals(baseline, OpenSessionCounter.current(), "closed with its lease, as SEQUENTIAL does");
        }
    }

    @Test
    void anUntakenPrefetchIsClosedWithItsHandle() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            SessionCache.Prefetch ahead = cache.prefetch(spec("transformer", 3, GIB), 0);
            ahead.close();
            assertEquals(baseline, OpenSessionCounter.current(), "closing the handle waits for the creation");
            assertEquals(0, cache.openSessions());
            ahead.close();
            // A later acquire opens its own session.
            try (SessionLease lease = cache.acquire(spec("transformer", 3, GIB))) {
                assertEquals(baseline + 1, OpenSessionCounter.current());
            }
        }
    }

    @Test
    void closingTheCacheClosesPrefetchesStillBeingCreated() {
        SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy());
        cache.prefetch(spec("transformer", 3, GIB), 0);
        cache.prefetch(spec("vae", 4, MIB), 0);
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void aBackgroundFailureIsThrownByTheStageThatTakesIt() {
        SessionSpec bad =
                new SessionSpec("transformer", dir.resolve("absent.onnx"), Map.of(), OptimizationLevel.ALL, GIB);
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy());
                SessionCache.Prefetch ahead = cache.prefetch(bad, 0)) {
            assertNotSame(SessionCache.Prefetch.NONE, ahead);
            String msg = assertThrows(ModelLoadException.class, () -> cache.acquire(bad))
                    .getMessage();
            assertTrue(msg.contains("transformer (absent.onnx)"), msg);
        }
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void noPrefetchBeyondTheBudget() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, SequentialBudget.NONE)) {
            assertSame(SessionCache.Prefetch.NONE, cache.prefetch(spec("transformer", 3, GIB), 0));
        }
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            // The transformer beside a text encoder of the same size being created: refused.
            assertSame(SessionCache.Prefetch.NONE, cache.prefetch(spec("transformer", 3, GIB), GIB));
        }
    }

    @Test
    void residentInstallsAPrefetchedSession() {
        SessionCache cache = cache(MemoryPolicy.RESIDENT, SequentialBudget.NONE);
        SessionSpec s = spec("transformer", 3, GIB);
        try (SessionCache.Prefetch ahead = cache.prefetch(s, 0)) {
            ManagedSession first;
            try (SessionLease lease = cache.acquire(s)) {
                first = lease.session();
            }
            try (SessionLease again = cache.acquire(s)) {
                assertSame(first, again.session(), "resident from then on");
            }
            assertSame(SessionCache.Prefetch.NONE, cache.prefetch(s, 0), "already resident");
        }
        assertEquals(baseline + 1, OpenSessionCounter.current());
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
    }
}
