package dev.flux2.onnx.session;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link dev.flux2.api.MemoryPolicy#RESIDENT}'s half of the {@link SessionCache}: one session per graph key is kept
 * open across generations until the cache closes. A request for the same graph with other pinned dimensions (another
 * resolution) replaces it; the replaced session closes when its last lease is released, so at most one resolution
 * per graph is resident and memory stays bounded by the sum of the stages. A graph that is not resident yet may be
 * opened ahead. Guarded by the cache's lock.
 */
final class ResidentSessions extends Residency {
    private static final Logger LOG = LoggerFactory.getLogger(ResidentSessions.class);

    private final Map<String, Resident> resident = new HashMap<>();

    ResidentSessions(SessionCache cache) {
        super(cache);
    }

    @Override
    boolean mayPrefetchLocked(SessionSpec spec, long concurrentWeightBytes) {
        Resident current = resident.get(spec.graphKey());
        return current == null || !current.session.spec().equals(spec);
    }

    @Override
    boolean trimsBeforeCreation() {
        return false;
    }

    @Override
    void clearLocked() {
        resident.clear();
    }

    @Override
    SessionLease acquire(SessionSpec spec) {
        SessionCache.Prefetch ahead;
        synchronized (cache) {
            cache.checkOpenLocked(spec);
            Resident current = resident.get(spec.graphKey());
            if (current != null && current.session.spec().equals(spec)) {
                return lease(current);
            }
            ahead = cache.prefetched.remove(spec);
            if (ahead == null) {
                // Held under the lock so that two generations never open the same resident graph twice.
                ManagedSession session = cache.factory.open(spec);
                cache.trackLocked(session);
                return lease(install(spec, session));
            }
        }
        ManagedSession session = ahead.take();
        synchronized (cache) {
            Resident current = resident.get(spec.graphKey());
            if (current != null && current.session.spec().equals(spec)) {
                // Another generation installed one meanwhile: use it, drop the prefetched one.
                cache.closeTrackedLocked(session);
                return lease(current);
            }
            return lease(install(spec, session));
        }
    }

    private Resident install(SessionSpec spec, ManagedSession session) {
        Resident current = resident.get(spec.graphKey());
        if (current != null) {
            LOG.debug(
                    "replacing resident session {} {} by {}",
                    spec.label(),
                    current.session.spec().dimensions(),
                    spec.dimensions());
            current.evicted = true;
            closeIfUnused(current);
        }
        Resident installed = new Resident(session);
        resident.put(spec.graphKey(), installed);
        return installed;
    }

    private SessionLease lease(Resident r) {
        r.leases++;
        return new SessionLease(r.session, () -> release(r));
    }

    private void release(Resident r) {
        synchronized (cache) {
            r.leases--;
            closeIfUnused(r);
        }
    }

    private void closeIfUnused(Resident r) {
        if (r.evicted && r.leases == 0) {
            cache.closeTrackedLocked(r.session);
        }
    }

    /** A resident session and how many leases use it. Guarded by the cache's lock. */
    private static final class Resident {
        final ManagedSession session;
        int leases;
        boolean evicted;

        Resident(ManagedSession session) {
            this.session = session;
        }
    }
}
