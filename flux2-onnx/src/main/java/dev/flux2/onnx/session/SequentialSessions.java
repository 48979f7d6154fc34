package dev.flux2.onnx.session;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link dev.flux2.api.MemoryPolicy#SEQUENTIAL}'s half of the {@link SessionCache}: every lease opens its own session
 * and closing the lease closes it, so only the stages running right now hold memory (peak ≈ the largest stage).
 * Native memory that earlier stages freed is handed back to the OS first ({@link NativeHeapTrim}), so it does not add
 * to the peak that the new session's creation sets. Within its {@link SequentialBudget}, sessions are kept across
 * generations instead of closed (and close again when a creation needs their room), and the next stage's session may
 * be opened ahead. Guarded by the cache's lock.
 */
final class SequentialSessions extends Residency {
    private static final Logger LOG = LoggerFactory.getLogger(SequentialSessions.class);

    private final SequentialBudget budget;
    /** Sessions kept across generations, by spec. */
    private final Map<SessionSpec, Kept> kept = new LinkedHashMap<>();

    SequentialSessions(SessionCache cache, SequentialBudget budget) {
        super(cache);
        this.budget = budget;
    }

    @Override
    boolean mayPrefetchLocked(SessionSpec spec, long concurrentWeightBytes) {
        if (kept.containsKey(spec)) {
            return false;
        }
        long held = cache.heldSettledBytesLocked() + SequentialBudget.creationPeak(concurrentWeightBytes);
        if (!budget.mayPrefetch(held, spec.weightBytes())) {
            LOG.debug(
                    "not opening {} ahead: {} MiB of weights beside {} MiB held exceeds the SEQUENTIAL "
                            + "budget or the memory available",
                    spec.label(),
                    spec.weightBytes() >> 20,
                    held >> 20);
            return false;
        }
        return true;
    }

    @Override
    boolean trimsBeforeCreation() {
        return true;
    }

    @Override
    void clearLocked() {
        kept.clear();
    }

    @Override
    SessionLease acquire(SessionSpec spec) {
        SessionCache.Prefetch ahead;
        synchronized (cache) {
            cache.checkOpenLocked(spec);
            Kept k = kept.get(spec);
            if (k != null) {
                k.leases++;
                return new SessionLease(k.session, () -> releaseKept(k));
            }
            ahead = cache.prefetched.remove(spec);
        }
        ManagedSession session;
        if (ahead != null) {
            session = ahead.take();
        } else {
            for (ManagedSession evicted : evictKeptFor(spec)) {
                cache.closeTracked(evicted);
            }
            // What earlier stages freed goes back to the OS before this session's creation sets the peak.
            NativeHeapTrim.trim();
            // Opened outside the lock: creating a multi-GB session takes seconds and must not block other
            // generations.
            session = cache.factory.open(spec);
            synchronized (cache) {
                if (cache.closedLocked()) {
                    session.close();
                    throw SessionCache.closedError(spec);
                }
                cache.trackLocked(session);
            }
        }
        if (budget.mayKeep(spec.weightBytes(), List.of()) && !budget.keepsEverything()) {
            // A session that may be kept must not keep its activations' memory while a later creation sets the peak.
            session.shrinkArenaAfterRuns();
        }
        return new SessionLease(session, () -> releaseSequential(session));
    }

    private void releaseSequential(ManagedSession session) {
        SessionSpec spec = session.spec();
        synchronized (cache) {
            if (!cache.closedLocked()
                    && !kept.containsKey(spec)
                    && budget.mayKeep(spec.weightBytes(), keptWeightsLocked())) {
                Kept k = new Kept(session);
                kept.put(spec, k);
                LOG.debug(
                        "keeping {} open across generations ({} KiB of weights)",
                        spec.label(),
                        spec.weightBytes() >> 10);
                return;
            }
        }
        cache.closeTracked(session);
    }

    private void releaseKept(Kept k) {
        synchronized (cache) {
            k.leases--;
        }
    }

    private List<Long> keptWeightsLocked() {
        List<Long> weights = new ArrayList<>();
        for (SessionSpec s : kept.keySet()) {
            weights.add(s.weightBytes());
        }
        return weights;
    }

    /**
     * Takes out of the kept set, for closing, the sessions that must give way to the creation of {@code spec}: the
     * same graph kept for other dimensions (one size per graph, as RESIDENT), then, largest first, those without a
     * lease while the creation would not fit beside what is held.
     */
    private List<ManagedSession> evictKeptFor(SessionSpec spec) {
        synchronized (cache) {
            return evictKeptForLocked(spec);
        }
    }

    private List<ManagedSession> evictKeptForLocked(SessionSpec spec) {
        List<ManagedSession> out = new ArrayList<>();
        for (var it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SessionSpec, Kept> e = it.next();
            if (e.getValue().leases == 0 && e.getKey().graphKey().equals(spec.graphKey())) {
                it.remove();
                out.add(e.getValue().session);
            }
        }
        long held = cache.heldSettledBytesLocked()
                - out.stream()
                        .mapToLong(m -> SequentialBudget.settled(m.spec().weightBytes()))
                        .sum();
        while (budget.mustEvict(held, spec.weightBytes())) {
            Map.Entry<SessionSpec, Kept> largest = null;
            for (Map.Entry<SessionSpec, Kept> e : kept.entrySet()) {
                if (e.getValue().leases == 0
                        && (largest == null
                                || e.getKey().weightBytes() > largest.getKey().weightBytes())) {
                    largest = e;
                }
            }
            if (largest == null) {
                break;
            }
            kept.remove(largest.getKey());
            out.add(largest.getValue().session);
            held -= SequentialBudget.settled(largest.getKey().weightBytes());
        }
        for (ManagedSession m : out) {
            LOG.debug("closing kept session {} to make room for {}", m.spec().label(), spec.label());
        }
        return out;
    }

    /** A SEQUENTIAL session kept across generations and how many leases use it. Guarded by the cache's lock. */
    private static final class Kept {
        final ManagedSession session;
        int leases;

        Kept(ManagedSession session) {
            this.session = session;
        }
    }
}
