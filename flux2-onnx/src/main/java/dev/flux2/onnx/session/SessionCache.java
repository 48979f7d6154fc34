package dev.flux2.onnx.session;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
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
 *       the new session's creation sets. Within its {@link SequentialBudget}, sessions are kept across
 *       generations instead of closed (and close again when a creation needs their room), and {@link #prefetch}
 *       opens the next stage's session in the background.</li>
 *   <li>{@link MemoryPolicy#RESIDENT}: one session per graph key is kept open across generations until
 *       {@link #close()}. A request for the same graph with other pinned dimensions (another resolution) replaces
 *       it; the replaced session closes when its last lease is released, so at most one resolution per graph is
 *       resident and memory stays bounded by the sum of the stages. {@link #prefetch} opens a graph that is not
 *       resident yet in the background.</li>
 * </ul>
 *
 * <p>Every session opened through the cache is tracked, so {@link #close()} releases all of them, including those a
 * running generation still leases (its next run then fails with {@link PipelineClosedException}; a run in flight
 * is waited for) and those still being created in the background (close waits for their creation, then closes
 * them). A prefetched session that no stage takes is closed when its {@link Prefetch} handle is closed. A failure to
 * create it is thrown, as the same {@link ModelLoadException}, by the {@link #acquire} that takes it. Thread-safe.
 */
public final class SessionCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionCache.class);

    private final SessionFactory factory;
    private final MemoryPolicy policy;
    private final SequentialBudget budget;
    private final Map<String, Resident> resident = new HashMap<>();
    private final Map<ManagedSession, Boolean> open = new IdentityHashMap<>();
    /** SEQUENTIAL sessions kept across generations, by spec; guarded by this. */
    private final Map<SessionSpec, Kept> kept = new LinkedHashMap<>();
    /** Sessions being (or already) created in the background and not yet taken, by spec; guarded by this. */
    private final Map<SessionSpec, Prefetch> prefetched = new HashMap<>();

    private boolean closed;

    /**
     * A cache that keeps and prefetches nothing under SEQUENTIAL ({@link SequentialBudget#NONE}).
     *
     * @param factory opens sessions
     * @param policy when sessions are closed: SEQUENTIAL or RESIDENT
     */
    public SessionCache(SessionFactory factory, MemoryPolicy policy) {
        this(factory, policy, SequentialBudget.NONE);
    }

    /**
     * @param factory opens sessions
     * @param policy when sessions are closed: SEQUENTIAL or RESIDENT
     * @param budget what SEQUENTIAL may keep across generations and open ahead
     */
    public SessionCache(SessionFactory factory, MemoryPolicy policy, SequentialBudget budget) {
        this.factory = Objects.requireNonNull(factory, "factory");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.budget = Objects.requireNonNull(budget, "budget");
        if (policy == MemoryPolicy.AUTO) {
            throw new IllegalArgumentException("the session cache needs a resolved policy, got AUTO");
        }
    }

    /** @return the memory policy */
    public MemoryPolicy policy() {
        return policy;
    }

    /**
     * @param spec the graph and its pinned dimensions
     * @return a lease on a session for the spec; the caller closes it
     * @throws PipelineClosedException after {@link #close()}
     * @throws ModelLoadException when the session cannot be opened (also when its background creation failed)
     */
    public SessionLease acquire(SessionSpec spec) {
        return policy == MemoryPolicy.RESIDENT ? acquireResident(spec) : acquireSequential(spec);
    }

    /**
     * Starts creating the session for {@code spec} on a background thread, if the policy and memory allow it: under
     * RESIDENT when the graph is not resident with these dimensions yet; under SEQUENTIAL when the
     * {@link SequentialBudget} allows holding it beside the sessions open now. The next {@link #acquire} of the same
     * spec takes it.
     *
     * @param spec the graph and its pinned dimensions
     * @param concurrentWeightBytes the weights of a session the generation will create meanwhile (the text
     *     encoder's, when the transformer is opened ahead of it), counted at its creation peak; 0 for none
     * @return a handle whose {@code close()} discards the session if no stage has taken it; a no-op handle when
     *     nothing was started
     */
    public Prefetch prefetch(SessionSpec spec, long concurrentWeightBytes) {
        if (factory.providers().usesDevice()) {
            // A creation on another thread would overlap this generation's runs on the device (DeviceGate): the
            // session is opened when its stage needs it instead.
            return Prefetch.NONE;
        }
        Prefetch p;
        synchronized (this) {
            if (closed || prefetched.containsKey(spec)) {
                return Prefetch.NONE;
            }
            if (policy == MemoryPolicy.RESIDENT) {
                Resident current = resident.get(spec.graphKey());
                if (current != null && current.session.spec().equals(spec)) {
                    return Prefetch.NONE;
                }
            } else {
                if (kept.containsKey(spec)) {
                    return Prefetch.NONE;
                }
                long held = heldSettledBytesLocked() + SequentialBudget.creationPeak(concurrentWeightBytes);
                if (!budget.mayPrefetch(held, spec.weightBytes())) {
                    LOG.debug(
                            "not opening {} ahead: {} MiB of weights beside {} MiB held exceeds the SEQUENTIAL "
                                    + "budget or the memory available",
                            spec.label(),
                            spec.weightBytes() >> 20,
                            held >> 20);
                    return Prefetch.NONE;
                }
            }
            p = new Prefetch(this, spec);
            prefetched.put(spec, p);
        }
        LOG.debug("opening {} in the background", spec.label());
        p.start();
        return p;
    }

    private SessionLease acquireSequential(SessionSpec spec) {
        Prefetch ahead;
        synchronized (this) {
            checkOpenLocked(spec);
            Kept k = kept.get(spec);
            if (k != null) {
                k.leases++;
                return new SessionLease(k.session, () -> releaseKept(k));
            }
            ahead = prefetched.remove(spec);
        }
        ManagedSession session;
        if (ahead != null) {
            session = ahead.take();
        } else {
            for (ManagedSession evicted : evictKeptFor(spec)) {
                closeTracked(evicted);
            }
            // What earlier stages freed goes back to the OS before this session's creation sets the peak.
            NativeHeapTrim.trim();
            // Opened outside the lock: creating a multi-GB session takes seconds and must not block other
            // generations.
            session = factory.open(spec);
            synchronized (this) {
                if (closed) {
                    session.close();
                    throw closedError(spec);
                }
                open.put(session, Boolean.TRUE);
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
        synchronized (this) {
            if (!closed && !kept.containsKey(spec) && budget.mayKeep(spec.weightBytes(), keptWeightsLocked())) {
                Kept k = new Kept(session);
                kept.put(spec, k);
                LOG.debug(
                        "keeping {} open across generations ({} KiB of weights)",
                        spec.label(),
                        spec.weightBytes() >> 10);
                return;
            }
        }
        closeTracked(session);
    }

    private synchronized void releaseKept(Kept k) {
        k.leases--;
    }

    private SessionLease acquireResident(SessionSpec spec) {
        Prefetch ahead;
        synchronized (this) {
            checkOpenLocked(spec);
            Resident current = resident.get(spec.graphKey());
            if (current != null && current.session.spec().equals(spec)) {
                return lease(current);
            }
            ahead = prefetched.remove(spec);
            if (ahead == null) {
                // Held under the lock so that two generations never open the same resident graph twice.
                ManagedSession session = factory.open(spec);
                open.put(session, Boolean.TRUE);
                return lease(install(spec, session));
            }
        }
        ManagedSession session = ahead.take();
        synchronized (this) {
            Resident current = resident.get(spec.graphKey());
            if (current != null && current.session.spec().equals(spec)) {
                // Another generation installed one meanwhile: use it, drop the prefetched one.
                closeTrackedLocked(session);
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

    private long heldSettledBytesLocked() {
        long held = 0;
        for (ManagedSession s : open.keySet()) {
            held += SequentialBudget.settled(s.spec().weightBytes());
        }
        for (SessionSpec s : prefetched.keySet()) {
            held += SequentialBudget.settled(s.weightBytes());
        }
        return held;
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
    private synchronized List<ManagedSession> evictKeptFor(SessionSpec spec) {
        List<ManagedSession> out = new ArrayList<>();
        for (var it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SessionSpec, Kept> e = it.next();
            if (e.getValue().leases == 0 && e.getKey().graphKey().equals(spec.graphKey())) {
                it.remove();
                out.add(e.getValue().session);
            }
        }
        long held = heldSettledBytesLocked()
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

    /** @return the number of sessions this cache holds open (resident, kept, leased or prefetched) */
    public synchronized int openSessions() {
        return open.size();
    }

    private void checkOpenLocked(SessionSpec spec) {
        if (closed) {
            throw closedError(spec);
        }
    }

    private static PipelineClosedException closedError(SessionSpec spec) {
        return new PipelineClosedException("cannot open " + spec.label() + ": the pipeline has been closed");
    }

    /**
     * Closes every session opened through this cache, after waiting for the ones still being created in the
     * background. Idempotent.
     */
    @Override
    public void close() {
        List<ManagedSession> toClose;
        List<Prefetch> pending;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(open.keySet());
            open.clear();
            resident.clear();
            kept.clear();
            pending = new ArrayList<>(prefetched.values());
            prefetched.clear();
        }
        for (ManagedSession s : toClose) {
            s.close();
        }
        for (Prefetch p : pending) {
            p.discardAndWait();
        }
    }

    /** Called by a prefetch whose session is ready: track it, unless the cache closed or it was discarded. */
    private synchronized boolean adopt(ManagedSession session) {
        if (closed) {
            return false;
        }
        open.put(session, Boolean.TRUE);
        return true;
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

    /** A SEQUENTIAL session kept across generations and how many leases use it. Guarded by the cache's lock. */
    private static final class Kept {
        final ManagedSession session;
        int leases;

        Kept(ManagedSession session) {
            this.session = session;
        }
    }

    /**
     * A session being created on a background thread for a later {@link #acquire}. Closing the handle discards the
     * session if no stage has taken it (it is closed as soon as its creation ends). Thread-safe; idempotent close.
     */
    public static final class Prefetch implements AutoCloseable {
        /** A handle for nothing started. */
        public static final Prefetch NONE = new Prefetch(null, null);

        private final SessionCache cache;
        private final SessionSpec spec;
        /** Guarded by this; whether {@link #create} was handed to a thread. */
        private boolean started;

        private ManagedSession session;
        private RuntimeException failure;
        private boolean done;
        private boolean taken;
        private boolean discarded;

        private Prefetch(SessionCache cache, SessionSpec spec) {
            this.cache = cache;
            this.spec = spec;
        }

        private void start() {
            synchronized (this) {
                started = true;
            }
            try {
                // On a reused thread, whose malloc arena holds what the last load freed (LoaderThreads).
                LoaderThreads.run("flux2-open-" + spec.graphKey(), this::create);
            } catch (OutOfMemoryError e) {
                // Never started: end the creation as failed, or take() would wait for it forever.
                synchronized (this) {
                    failure = ThreadStartFailure.of("opening " + spec.label() + " in the background", e);
                    done = true;
                    notifyAll();
                }
            }
        }

        private void create() {
            ManagedSession created = null;
            RuntimeException error = null;
            try {
                if (cache.policy == MemoryPolicy.SEQUENTIAL) {
                    NativeHeapTrim.trim();
                }
                created = cache.factory.open(spec);
            } catch (RuntimeException e) {
                error = e;
            }
            boolean keep = created != null && cache.adopt(created);
            synchronized (this) {
                if (created != null && (!keep || discarded)) {
                    if (keep) {
                        cache.closeTracked(created);
                    } else {
                        created.close();
                    }
                    created = null;
                    if (!discarded) {
                        error = new PipelineClosedException(
                                "cannot open " + spec.label() + ": the pipeline has been closed");
                    }
                }
                session = created;
                failure = error;
                done = true;
                notifyAll();
            }
            if (error != null && discarded()) {
                LOG.debug("opening {} in the background failed after it was no longer needed", spec.label(), error);
            }
        }

        private synchronized boolean discarded() {
            return discarded;
        }

        /** Waits for the creation and hands the session over (the cache tracks it already). */
        private ManagedSession take() {
            synchronized (this) {
                taken = true;
                boolean interrupted = false;
                while (!done) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                if (failure != null) {
                    throw rethrow(failure);
                }
                return session;
            }
        }

        private static RuntimeException rethrow(RuntimeException e) {
            if (e instanceof Flux2Exception) {
                return e;
            }
            return new ModelLoadException("opening a session in the background failed: " + e.getMessage(), e);
        }

        /**
         * Discards an unclaimed session: closed now if created, else as soon as its creation ends. A prefetch that
         * an {@link #acquire} has claimed (removed from the cache's map) is left to it.
         */
        private boolean discard() {
            synchronized (cache) {
                if (cache.prefetched.get(spec) != this) {
                    return false;
                }
                cache.prefetched.remove(spec);
            }
            markDiscarded();
            return true;
        }

        private void markDiscarded() {
            ManagedSession toClose = null;
            synchronized (this) {
                if (taken || discarded) {
                    return;
                }
                discarded = true;
                if (done && session != null) {
                    toClose = session;
                    session = null;
                }
            }
            if (toClose != null) {
                LOG.debug("closing {} opened ahead but not used", spec.label());
                cache.closeTracked(toClose);
            }
        }

        private void discardAndWait() {
            markDiscarded();
            boolean interrupted = false;
            synchronized (this) {
                // create() closes a discarded session before it sets done.
                while (started && !done) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        /**
         * Discards the session if no stage has taken it, and waits until its creation has ended and it is closed, so
         * that a cancelled generation leaves no session behind. Idempotent.
         */
        @Override
        public void close() {
            if (cache == null) {
                return;
            }
            if (discard()) {
                discardAndWait();
            }
        }
    }
}
