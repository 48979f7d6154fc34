package dev.flux2.onnx.session;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
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
 * Decides how long sessions live, per {@link MemoryPolicy}: the policy itself is one of two halves,
 * {@link SequentialSessions} (a session per lease, kept or opened ahead within a {@link SequentialBudget}) and
 * {@link ResidentSessions} (one session per graph, kept until close); this class holds what they share.
 *
 * <p>Every session opened through the cache is tracked, so {@link #close()} releases all of them, including those a
 * running generation still leases (its next run then fails with {@link PipelineClosedException}; a run in flight
 * is waited for) and those still being created in the background (close waits for their creation, then closes
 * them). A prefetched session that no stage takes is closed when its {@link Prefetch} handle is closed. A failure to
 * create it is thrown, as the same {@link ModelLoadException}, by the {@link #acquire} that takes it. Thread-safe.
 */
public final class SessionCache implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionCache.class);

    final SessionFactory factory;
    private final MemoryPolicy policy;
    /** The policy's half: which sessions live how long. */
    private final Residency residency;
    /** Every session opened through the cache and not closed yet; guarded by this. */
    private final Map<ManagedSession, Boolean> open = new IdentityHashMap<>();
    /** Sessions being (or already) created in the background and not yet taken, by spec; guarded by this. */
    final Map<SessionSpec, Prefetch> prefetched = new HashMap<>();

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
        Objects.requireNonNull(budget, "budget");
        this.residency = switch (policy) {
            case RESIDENT -> new ResidentSessions(this);
            case SEQUENTIAL -> new SequentialSessions(this, budget);
            case AUTO -> throw new IllegalArgumentException("the session cache needs a resolved policy, got AUTO");
        };
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
        return residency.acquire(spec);
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
            if (closed || prefetched.containsKey(spec) || !residency.mayPrefetchLocked(spec, concurrentWeightBytes)) {
                return Prefetch.NONE;
            }
            p = new Prefetch(this, spec);
            prefetched.put(spec, p);
        }
        LOG.debug("opening {} in the background", spec.label());
        p.start();
        return p;
    }

    void closeTracked(ManagedSession session) {
        synchronized (this) {
            open.remove(session);
        }
        session.close();
    }

    void closeTrackedLocked(ManagedSession session) {
        open.remove(session);
        session.close();
    }

    /** @return the settled size of every session open or being opened; the caller holds this cache's lock */
    long heldSettledBytesLocked() {
        long held = 0;
        for (ManagedSession s : open.keySet()) {
            held += SequentialBudget.settled(s.spec().weightBytes());
        }
        for (SessionSpec s : prefetched.keySet()) {
            held += SequentialBudget.settled(s.weightBytes());
        }
        return held;
    }

    /** @return the number of sessions this cache holds open (resident, kept, leased or prefetched) */
    public synchronized int openSessions() {
        return open.size();
    }

    void checkOpenLocked(SessionSpec spec) {
        if (closed) {
            throw closedError(spec);
        }
    }

    /** @return whether {@link #close()} has been called; the caller holds this cache's lock */
    boolean closedLocked() {
        return closed;
    }

    static PipelineClosedException closedError(SessionSpec spec) {
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
            residency.clearLocked();
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

    /** Tracks a session opened for a lease; the caller holds this cache's lock. */
    void trackLocked(ManagedSession session) {
        open.put(session, Boolean.TRUE);
    }

    /** Called by a prefetch whose session is ready: track it, unless the cache closed or it was discarded. */
    private synchronized boolean adopt(ManagedSession session) {
        if (closed) {
            return false;
        }
        open.put(session, Boolean.TRUE);
        return true;
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
                if (cache.residency.trimsBeforeCreation()) {
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
        ManagedSession take() {
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
