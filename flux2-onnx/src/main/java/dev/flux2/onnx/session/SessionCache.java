package dev.flux2.onnx.session;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PipelineClosedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides how long sessions live, per {@link MemoryPolicy}.
 *
 * <ul>
 *   <li>{@link MemoryPolicy#SEQUENTIAL}: every lease opens its own session and closing the lease closes it, so
 *       only the stages running right now hold memory (peak ≈ the largest stage). Native memory that earlier
 *       stages freed is handed back to the OS first ({@link NativeHeapTrim}), so it does not add to the peak that
 *       the new session's creation sets.</li>
 *   <li>{@link MemoryPolicy#RESIDENT}: one session per graph key is kept open across generations until
 *       {@link #close()}. A request for the same graph with other pinned dimensions (another resolution) replaces
 *       it; the replaced session closes when its last lease is released, so at most one resolution per graph is
 *       resident and memory stays bounded by the sum of the stages.</li>
 * </ul>
 *
 * <p>Every session opened through the cache is tracked, so {@link #close()} releases all of them, including those a
 * running generation still leases (its next run then fails with {@link PipelineClosedException}; a run in flight
 * is waited for). Thread-safe.
 */
public final class SessionCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionCache.class);

    private final SessionFactory factory;
    private final MemoryPolicy policy;
    private final Map<String, Resident> resident = new HashMap<>();
    private final Map<ManagedSession, Boolean> open = new IdentityHashMap<>();
    private boolean closed;

    /**
     * @param factory opens sessions
     * @param policy when sessions are closed
     */
    public SessionCache(SessionFactory factory, MemoryPolicy policy) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** @return the memory policy */
    MemoryPolicy policy() {
        return policy;
    }

    /**
     * @param spec the graph and its pinned dimensions
     * @return a lease on a session for the spec; the caller closes it
     * @throws PipelineClosedException after {@link #close()}
     * @throws dev.flux2.api.ModelLoadException when the session cannot be opened
     */
    public SessionLease acquire(SessionSpec spec) {
        return policy == MemoryPolicy.RESIDENT ? acquireResident(spec) : acquireSequential(spec);
    }

    private SessionLease acquireSequential(SessionSpec spec) {
        checkOpen(spec);
        // What earlier stages freed goes back to the OS before this session's creation sets the peak.
        NativeHeapTrim.trim();
        // Opened outside the lock: creating a multi-GB session takes seconds and must not block other generations.
        ManagedSession session = factory.open(spec);
        synchronized (this) {
            if (closed) {
                session.close();
                throw closedError(spec);
            }
            open.put(session, Boolean.TRUE);
        }
        return new SessionLease(session, () -> closeTracked(session));
    }

    private synchronized SessionLease acquireResident(SessionSpec spec) {
        checkOpen(spec);
        Resident current = resident.get(spec.graphKey());
        if (current == null || !current.session.spec().equals(spec)) {
            // Held under the lock so that two generations never open the same resident graph twice.
            ManagedSession session = factory.open(spec);
            open.put(session, Boolean.TRUE);
            if (current != null) {
                LOG.debug(
                        "replacing resident session {} {} by {}",
                        spec.label(),
                        current.session.spec().dimensions(),
                        spec.dimensions());
                current.evicted = true;
                closeIfUnused(current);
            }
            current = new Resident(session);
            resident.put(spec.graphKey(), current);
        }
        Resident leased = current;
        leased.leases++;
        return new SessionLease(leased.session, () -> release(leased));
    }

    private synchronized void release(Resident r) {
        r.leases--;
        closeIfUnused(r);
    }

    private void closeIfUnused(Resident r) {
        if (r.evicted && r.leases == 0) {
            closeTrackedLocked(r.session);
        }
    }

    private void closeTracked(ManagedSession session) {
        synchronized (this) {
            open.remove(session);
        }
        session.close();
    }

    private void closeTrackedLocked(ManagedSession session) {
        open.remove(session);
        session.close();
    }

    /** @return the number of sessions this cache holds open (resident or leased) */
    public synchronized int openSessions() {
        return open.size();
    }

    private synchronized void checkOpen(SessionSpec spec) {
        if (closed) {
            throw closedError(spec);
        }
    }

    private static PipelineClosedException closedError(SessionSpec spec) {
        return new PipelineClosedException("cannot open " + spec.label() + ": the pipeline has been closed");
    }

    /** Closes every session opened through this cache. Idempotent. */
    @Override
    public void close() {
        List<ManagedSession> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(open.keySet());
            open.clear();
            resident.clear();
        }
        for (ManagedSession s : toClose) {
            s.close();
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
