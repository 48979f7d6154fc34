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
import dev.flux2.onnx.options.OptimizationLevel;
import java.nio.file.Path;
import java.util.List;
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

    /**
     * A bundle like the timing bundle, on a machine with plenty of memory: a 1 GiB transformer (peak 1.3 GiB), a
     * 4 MiB text encoder and a 100 MiB VAE decoder.
     */
    private static SequentialBudget roomy() {
        return new SequentialBudget(List.of(GIB, 4 * MIB, 100 * MIB), () -> 64 * GIB, 2 * GIB);
    }

    /** A bundle like the real one: text encoder and transformer of about half the weights each, a 100 MiB VAE. */
    private static SequentialBudget realLike() {
        return new SequentialBudget(List.of(2602 * MIB, 2426 * MIB, 100 * MIB), () -> 64 * GIB, 2 * GIB);
    }

    private SessionCache cache(MemoryPolicy policy, SequentialBudget budget) {
        return new SessionCache(new SessionFactory(ENV, ExecutionProviders.cpuOnly(), 1), policy, budget);
    }

    private SessionSpec spec(String key, long n, long weightBytes) {
        return new SessionSpec(key, doubler, Map.of("n", n), OptimizationLevel.ALL, weightBytes);
    }

    @Test
    void budgetKeepsWhatFitsBesideTheLargestCreationLeft() {
        // Limit = 1.3 x the largest graph + 300 MiB; kept = 0.65 x weights; the rest is created at 1.3 x.
        SequentialBudget real = realLike();
        assertEquals((long) (1.3 * 2602 * MIB), real.sequentialPeakBytes());
        // VAE kept: 65 MiB + 1.3 x 2602 MiB (the text encoder, still created each time) = 3447 MiB <= 3683 MiB.
        assertTrue(real.mayKeep(100 * MIB, List.of()));
        // Transformer kept: 1577 + 65 + 3383 MiB > 3683 MiB; text encoder kept: 1691 + 65 + 3154 MiB > 3683 MiB.
        assertFalse(real.mayKeep(2426 * MIB, List.of(100 * MIB)), "the transformer beside the text encoder's peak");
        assertFalse(real.mayKeep(2602 * MIB, List.of(100 * MIB)), "the text encoder beside the transformer's peak");

        SequentialBudget timing = roomy();
        // Everything kept: 666 + 3 + 65 MiB <= 1631 MiB, and nothing is created again.
        assertTrue(timing.mayKeep(100 * MIB, List.of()));
        assertTrue(timing.mayKeep(4 * MIB, List.of(100 * MIB)));
        assertTrue(timing.mayKeep(GIB, List.of(100 * MIB, 4 * MIB)), "the largest, once nothing large is left");
        // The 1 GiB transformer while a second graph of 1 GiB would still be created: 666 + 1331 MiB > 1631 MiB.
        assertFalse(new SequentialBudget(List.of(GIB, GIB), () -> 64 * GIB, 0).mayKeep(GIB, List.of()));

        assertFalse(
                new SequentialBudget(List.of(GIB, 4 * MIB), () -> GIB, 2 * GIB).mayKeep(4 * MIB, List.of()),
                "not when the working memory is not free");
        assertFalse(SequentialBudget.NONE.mayKeep(MIB, List.of()));
        assertFalse(timing.mayKeep(0, List.of()), "unknown weights are not kept");
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
        assertFalse(new SequentialBudget(List.of(GIB), () -> 2 * GIB, 2 * GIB).mayPrefetch(0, 100 * MIB));
        assertFalse(SequentialBudget.NONE.mayPrefetch(0, MIB));
    }

    @Test
    void budgetKnowsWhenEverythingStaysOpen() {
        // The transformer's creation (1331 MiB) beside the other two kept (3 + 65 MiB) <= 1631 MiB, and the others'
        // beside it: no creation follows the first generation.
        assertTrue(roomy().keepsEverything());
        // The transformer's creation (3154 MiB) beside the kept text encoder and VAE (1691 + 65 MiB) > 3683 MiB:
        // creations follow, so kept VAE sessions must give their arenas back.
        assertFalse(realLike().keepsEverything());
        // Two graphs of 1 GiB: one's creation beside the other kept, 666 + 1331 MiB > 1631 MiB.
        assertFalse(new SequentialBudget(List.of(GIB, GIB), () -> 64 * GIB, 0).keepsEverything());
        assertFalse(SequentialBudget.NONE.keepsEverything());
    }

    @Test
    void budgetEvictsWhenACreationWouldNotFit() {
        SequentialBudget b = roomy();
        assertFalse(b.mustEvict((long) (0.65 * GIB), 100 * MIB));
        assertTrue(b.mustEvict((long) (0.65 * GIB), GIB), "a second 1 GiB creation beside a kept 1 GiB session");
        assertFalse(SequentialBudget.NONE.mustEvict(64 * GIB, GIB));
    }

    @Test
    void sequentialKeepsWhatTheBudgetAllowsUntilClose() {
        SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, realLike());
        ManagedSession first;
        try (SessionLease a = cache.acquire(spec("vae", 3, 100 * MIB))) {
            first = a.session();
        }
        assertEquals(baseline + 1, OpenSessionCounter.current(), "kept after its lease");
        try (SessionLease b = cache.acquire(spec("vae", 3, 100 * MIB))) {
            assertSame(first, b.session());
        }
        try (SessionLease big = cache.acquire(spec("transformer", 3, 2426 * MIB))) {
            assertNotSame(first, big.session());
        }
        assertEquals(baseline + 1, OpenSessionCounter.current(), "the transformer is closed with its lease");
        cache.close();
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void sequentialKeepsTheLargestSessionWhenNothingLargeIsLeftToCreate() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            ManagedSession transformer;
            try (SessionLease t = cache.acquire(spec("transformer", 3, GIB))) {
                transformer = t.session();
            }
            try (SessionLease v = cache.acquire(spec("vae", 3, 100 * MIB))) {
                assertEquals(baseline + 2, OpenSessionCounter.current());
            }
            long created = OpenSessionCounter.created();
            try (SessionLease again = cache.acquire(spec("transformer", 3, GIB))) {
                assertSame(transformer, again.session(), "no creation in the next generation");
                assertEquals(created, OpenSessionCounter.created());
            }
            assertEquals(baseline + 2, OpenSessionCounter.current());
        }
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void aKeptSessionGivesWayToAnotherSizeOfItsGraph() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            ManagedSession small;
            try (SessionLease a = cache.acquire(spec("vae", 3, 100 * MIB))) {
                small = a.session();
            }
            try (SessionLease b = cache.acquire(spec("vae", 4, 100 * MIB))) {
                assertNotSame(small, b.session());
                assertTrue(small.isClosed(), "one size per graph is kept");
                assertEquals(baseline + 1, OpenSessionCounter.current());
            }
            assertEquals(baseline + 1, OpenSessionCounter.current(), "the new size is kept instead");
        }
    }

    @Test
    void aKeptSessionGivesWayWhenACreationNeedsItsRoom() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, roomy())) {
            ManagedSession transformer;
            try (SessionLease t = cache.acquire(spec("transformer", 3, GIB))) {
                transformer = t.session();
            }
            assertFalse(transformer.isClosed(), "kept");
            // A graph the budget did not list (another 1 GiB graph): 666 MiB kept + 1331 MiB created > 1631 MiB.
            try (SessionLease other = cache.acquire(spec("fused", 3, GIB))) {
                assertTrue(transformer.isClosed(), "closed before the creation");
                assertEquals(baseline + 1, OpenSessionCounter.current());
            }
        }
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void aPrefetchedSessionIsTheOneTheStageTakes() {
        try (SessionCache cache = cache(MemoryPolicy.SEQUENTIAL, realLike())) {
            SessionSpec transformer = spec("transformer", 3, 2426 * MIB);
            try (SessionCache.Prefetch ahead = cache.prefetch(transformer, MIB)) {
                assertNotSame(SessionCache.Prefetch.NONE, ahead);
                try (SessionLease lease = cache.acquire(transformer)) {
                    assertEquals(baseline + 1, OpenSessionCounter.current(), "no second session was opened");
                    assertEquals(1, cache.openSessions());
                    assertEquals(transformer, lease.session().spec());
                }
            }
            assertEquals(
                    baseline,
                    OpenSessionCounter.current(),
                    "closed with its lease: the real bundle's transformer is not kept");
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
