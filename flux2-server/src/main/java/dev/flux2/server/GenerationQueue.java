package dev.flux2.server;

import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits generations to a fixed set of workers with a bounded wait queue, and enforces the per-request timeout by
 * cancelling the generation's {@link CancellationToken}. Admission is a semaphore of {@code workers + queue}
 * permits taken by {@link #admit()} (for an upload before its body is read, so a full service answers 429 before a
 * byte of it is buffered), and never races a worker that is just finishing. Nothing is preallocated per slot: a large {@code --queue} costs memory only when used. Thread-safe.
 */
final class GenerationQueue implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationQueue.class);
    /** How long a timed-out request waits for its cancelled generation to unwind before answering. */
    private static final Duration UNWIND_GRACE = Duration.ofSeconds(30);
    /** How often a waiting request checks that its client is still connected. */
    private static final Duration CLIENT_POLL = Duration.ofMillis(100);

    private final ImageGenerator generator;
    private final Duration timeout;
    private final ServiceStats stats;
    private final Semaphore permits;
    private final ThreadPoolExecutor workers;
    private final Set<CancellationToken> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** All workers and queue slots are taken. */
    static final class QueueFullException extends Exception {
        private static final long serialVersionUID = 1L;

        QueueFullException(String message) {
            super(message);
        }
    }

    /** The request's deadline passed; the generation was cancelled (or never started). */
    static final class TimedOutException extends Exception {
        private static final long serialVersionUID = 1L;

        TimedOutException(String message) {
            super(message);
        }
    }

    /** The client hung up while its request waited or ran; it was dropped, or its generation cancelled. */
    static final class AbandonedException extends Exception {
        private static final long serialVersionUID = 1L;

        AbandonedException(String message) {
            super(message);
        }
    }

    /**
     * A slot of {@code workers + queue} taken before the request's body is read. Handed to {@link #run}, which
     * releases it when the generation ends; closed without a run (the body was refused), it is released at once.
     */
    final class Admission implements AutoCloseable {
        private final AtomicBoolean settled = new AtomicBoolean();

        private Admission() {}

        /** Hands the slot to a run: from now on the run releases it. @return false when already settled */
        private boolean handOver() {
            return settled.compareAndSet(false, true);
        }

        /** Releases the slot unless a run took it. Idempotent. */
        @Override
        public void close() {
            if (settled.compareAndSet(false, true)) {
                permits.release();
            }
        }
    }

    /** The service is shutting down. */
    static final class ClosedException extends Exception {
        private static final long serialVersionUID = 1L;

        ClosedException(String message) {
            super(message);
        }
    }

    GenerationQueue(ImageGenerator generator, ServiceConfig config, ServiceStats stats) {
        this.generator = generator;
        this.timeout = config.requestTimeout();
        this.stats = stats;
        int slots = config.workers() + config.queueCapacity();
        this.permits = new Semaphore(slots);
        AtomicInteger n = new AtomicInteger();
        // The semaphore admits at most `slots` tasks; the executor's queue is unbounded but grows only with them (an
        // ArrayBlockingQueue of `slots` allocated --queue 1000000000 references up front).
        this.workers = new ThreadPoolExecutor(
                config.workers(), config.workers(), 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "flux2-generate-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Takes a slot for a request before its body is read.
     *
     * @return the slot, to hand to {@link #run} or to close
     * @throws QueueFullException when every worker and queue slot is taken
     * @throws ClosedException when the service is shutting down
     */
    Admission admit() throws QueueFullException, ClosedException {
        if (closed) {
            throw new ClosedException("the service is shutting down");
        }
        if (!permits.tryAcquire()) {
            stats.rejected.incrementAndGet();
            throw new QueueFullException("all " + workers.getMaximumPoolSize() + " workers are busy and the queue is"
                    + " full; retry later");
        }
        return new Admission();
    }

    /**
     * Runs one generation in an admitted slot, waiting for a worker if one is free soon enough. The slot is
     * released when the generation ends (or is dropped).
     *
     * @param slot the slot {@link #admit()} gave for this request
     * @param request a validated request
     * @param clientGone polled while the request waits or runs: true once its client has hung up
     * @return the result
     * @throws TimedOutException when the deadline passed (the generation was cancelled)
     * @throws AbandonedException when the client hung up (a queued request never runs; a running one is cancelled)
     * @throws ClosedException when the service is shutting down
     */
    GenerationResult run(Admission slot, GenerationRequest request, BooleanSupplier clientGone)
            throws TimedOutException, AbandonedException, ClosedException {
        return run(slot, request, clientGone, null);
    }

    /**
     * What a streamed answer adds to a run ({@link OpenAiImageStream}): live previews in the generation's controls,
     * handed over by the worker, and the work the request's own thread does with them while it waits.
     */
    interface Companion {
        /**
         * @param base the generation's controls (its cancellation token)
         * @return the controls the generation runs with; called on the worker
         */
        GenerationControls controls(GenerationControls base);

        /**
         * Called on the request's thread in place of waiting: deliver what the worker handed over, waiting at most
         * {@code nanos} for it. The queue checks the deadline and the client after each return.
         *
         * @param nanos the longest wait
         * @return true once {@link #generationEnded()} was seen (the queue then waits for the result itself)
         * @throws InterruptedException when the thread is interrupted
         */
        boolean whileWaiting(long nanos) throws InterruptedException;

        /** Called on the worker when the generation ended, however it ended (wakes {@link #whileWaiting}). */
        void generationEnded();
    }

    /**
     * {@link #run(Admission, GenerationRequest, BooleanSupplier)} with a companion that adds to the generation's
     * controls and works on this thread while it waits.
     *
     * @param slot the slot {@link #admit()} gave for this request
     * @param request a validated request
     * @param clientGone polled while the request waits or runs: true once its client has hung up
     * @param companion the streamed answer's side, or null
     * @return the result
     * @throws TimedOutException when the deadline passed (the generation was cancelled)
     * @throws AbandonedException when the client hung up (a queued request never runs; a running one is cancelled)
     * @throws ClosedException when the service is shutting down
     */
    GenerationResult run(Admission slot, GenerationRequest request, BooleanSupplier clientGone, Companion companion)
            throws TimedOutException, AbandonedException, ClosedException {
        CancellationToken token = new CancellationToken();
        if (!slot.handOver()) {
            throw new IllegalStateException("the admission was already used or released");
        }
        if (closed) {
            permits.release();
            throw new ClosedException("the service is shutting down");
        }
        AtomicBoolean claimed = new AtomicBoolean();
        Future<GenerationResult> future;
        stats.waiting.incrementAndGet();
        try {
            future = workers.submit(() -> execute(request, token, claimed, companion));
        } catch (RejectedExecutionException e) {
            stats.waiting.decrementAndGet();
            permits.release();
            throw new ClosedException("the service is shutting down");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw timedOut(future, token, claimed);
                }
                long wait = Math.min(left, CLIENT_POLL.toNanos());
                if (companion == null) {
                    try {
                        return future.get(wait, TimeUnit.NANOSECONDS);
                    } catch (TimeoutException e) {
                        // the client is polled below
                    }
                } else if (companion.whileWaiting(wait)) {
                    // ended: the worker's result follows its finally block at once
                    try {
                        return future.get(wait, TimeUnit.NANOSECONDS);
                    } catch (TimeoutException e) {
                        // the client is polled below
                    }
                } else if (future.isDone()) {
                    return future.get();
                }
                if (clientGone.getAsBoolean()) {
                    throw abandoned(future, token, claimed);
                }
            }
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        } catch (InterruptedException e) {
            token.cancel();
            Thread.currentThread().interrupt();
            throw new ClosedException("the request thread was interrupted (service shutting down)");
        }
    }

    private AbandonedException abandoned(
            Future<GenerationResult> future, CancellationToken token, AtomicBoolean claimed) {
        stats.abandoned.incrementAndGet();
        if (claimed.compareAndSet(false, true)) {
            future.cancel(false);
            stats.waiting.decrementAndGet();
            permits.release();
            return new AbandonedException("the client hung up while the request waited; it was dropped unrun");
        }
        token.cancel();
        return new AbandonedException("the client hung up; its generation was cancelled");
    }

    private GenerationResult execute(
            GenerationRequest request, CancellationToken token, AtomicBoolean claimed, Companion companion) {
        if (!claimed.compareAndSet(false, true)) {
            // The request timed out while queued; its handler already answered and released the permit.
            throw new CancellationException("request timed out before a worker was free");
        }
        stats.waiting.decrementAndGet();
        stats.running.incrementAndGet();
        running.add(token);
        if (closed) {
            // Queued before close(), started after close() cancelled the running ones: the executor still runs
            // queued tasks after shutdown(), so cancel here (the checks pair with close(): closed is set first).
            token.cancel();
        }
        try {
            GenerationControls controls = GenerationControls.none().withCancellation(token);
            GenerationResult result =
                    generator.generate(request, companion == null ? controls : companion.controls(controls));
            stats.completed.incrementAndGet();
            return result;
        } catch (GenerationCancelledException e) {
            stats.cancelled.incrementAndGet();
            throw e;
        } catch (RuntimeException | Error e) {
            stats.failed.incrementAndGet();
            throw e;
        } finally {
            running.remove(token);
            stats.running.decrementAndGet();
            permits.release();
            if (companion != null) {
                companion.generationEnded();
            }
        }
    }

    private TimedOutException timedOut(
            Future<GenerationResult> future, CancellationToken token, AtomicBoolean claimed) {
        stats.timedOut.incrementAndGet();
        long ms = timeout.toMillis();
        if (claimed.compareAndSet(false, true)) {
            future.cancel(false);
            stats.waiting.decrementAndGet();
            permits.release();
            return new TimedOutException("no worker became free within " + ms + " ms; the request was dropped");
        }
        token.cancel();
        try {
            future.get(UNWIND_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            return new TimedOutException("the generation finished after the " + ms + " ms deadline");
        } catch (ExecutionException e) {
            // The expected end: the generation threw GenerationCancelledException (counted in execute()).
            LOG.debug("timed-out generation ended with {}", e.getCause().toString());
            return new TimedOutException("the generation exceeded " + ms + " ms and was cancelled");
        } catch (TimeoutException e) {
            LOG.warn("a cancelled generation is still running {} s after its deadline", UNWIND_GRACE.toSeconds());
            return new TimedOutException("the generation exceeded " + ms + " ms; cancellation requested");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new TimedOutException("the generation exceeded " + ms + " ms; cancellation requested");
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IllegalStateException("generation failed: " + cause, cause);
    }

    /** Refuses new work, cancels running and queued generations and waits for the workers to stop. */
    @Override
    public void close() {
        closed = true;
        workers.shutdown();
        running.forEach(CancellationToken::cancel);
        try {
            if (!workers.awaitTermination(UNWIND_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("generation workers still running {} s after shutdown", UNWIND_GRACE.toSeconds());
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            workers.shutdownNow();
        }
    }
}
