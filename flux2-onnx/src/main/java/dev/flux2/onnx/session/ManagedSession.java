package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InferenceException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.spi.StageContext;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link OrtSession} with its {@link OrtSession.SessionOptions}, closed exactly once (session first, then its
 * options) and never while a run is in flight.
 *
 * <p>{@link #run} holds a read lock, {@link #close()} the write lock, because {@code OrtSession.run} takes no lock
 * against a concurrent close (docs/design-notes.md §4). Each run gets its own {@link TerminableRunOptions} tied to the
 * generation's cancellation; the time spent inside {@code OrtSession.run} is reported to the
 * {@link StageContext}. Runtime errors become {@link InferenceException} with the {@code OrtErrorCode} name and the
 * call's position, or {@link GenerationCancelledException} when the generation was cancelled. Thread-safe:
 * concurrent runs are allowed, as ONNX Runtime allows them.
 */
public final class ManagedSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ManagedSession.class);

    private final SessionSpec spec;
    private final OrtSession session;
    private final OrtSession.SessionOptions options;
    private final ExecutionProviders providers;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean shrinkArenaAfterRun;

    ManagedSession(
            SessionSpec spec, OrtSession session, OrtSession.SessionOptions options, ExecutionProviders providers) {
        this.spec = spec;
        this.session = session;
        this.options = options;
        this.providers = providers;
        OpenSessionCounter.opened();
    }

    /** @return what the session was opened for */
    public SessionSpec spec() {
        return spec;
    }

    /**
     * Runs the graph.
     *
     * @param call inputs, outputs and position
     * @param context cancellation and timing of the generation
     * @return the result; the caller closes it (pinned outputs are not closed with it)
     * @throws GenerationCancelledException when the generation is or becomes cancelled
     * @throws InferenceException when the runtime fails
     * @throws PipelineClosedException when the session has been closed
     */
    public OrtSession.Result run(RunCall call, StageContext context) {
        context.throwIfCancelled(call.where());
        lock.readLock().lock();
        try {
            if (closed.get()) {
                throw new PipelineClosedException(
                        call.where() + ": the " + spec.label() + " session has been closed (was the pipeline closed?)");
            }
            try (TerminableRunOptions runOptions =
                    new TerminableRunOptions(context, shrinkArenaAfterRun && call.endsStage())) {
                long start = System.nanoTime();
                try {
                    // On a device provider no other ONNX Runtime call may overlap the run (DeviceGate).
                    return providers
                            .gate()
                            .call(() ->
                                    session.run(call.inputs(), call.requested(), call.pinned(), runOptions.options()));
                } finally {
                    context.recordRuntimeNanos(System.nanoTime() - start);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (context.isCancelled()) {
                    throw new GenerationCancelledException(call.where() + " was cancelled", e);
                }
                throw new InferenceException(
                        call.where() + " was interrupted while waiting for the device " + providers.describe(),
                        "INTERRUPTED",
                        e);
            } catch (OrtException e) {
                if (context.isCancelled()) {
                    throw new GenerationCancelledException(call.where() + " was cancelled", e);
                }
                throw new InferenceException(
                        call.where() + " failed in ONNX Runtime (" + e.getCode() + ", graph " + spec.label()
                                + ", providers " + providers.describe() + "): " + e.getMessage(),
                        e.getCode().name(),
                        e);
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Makes every later run that ends its stage ({@link RunCall#endsStage()}) return its CPU arena's free memory at its
     * end, for a session that stays open across
     * generations without running in between (SEQUENTIAL's kept sessions): otherwise its arena keeps the peak of its
     * activations (tens to hundreds of MiB for a 512² VAE stage) and that adds to the next stage's peak.
     */
    void shrinkArenaAfterRuns() {
        shrinkArenaAfterRun = true;
    }

    /** @return whether {@link #close()} has been called */
    boolean isClosed() {
        return closed.get();
    }

    /** Waits for runs in flight, then closes the session and its options. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lock.writeLock().lock();
        try {
            long start = System.nanoTime();
            try {
                providers.gate().callUninterruptibly(() -> {
                    session.close();
                    return null;
                });
            } catch (OrtException e) {
                // Keep closing: the options must still be released. Logged, not swallowed silently.
                LOG.warn("closing the {} session failed", spec.label(), e);
            } finally {
                SessionLifecycleClock.closed(System.nanoTime() - start);
                OpenSessionCounter.closed();
                // After the session (docs/design-notes.md §4); a failure here must not leave the write lock held.
                options.close();
            }
            LOG.debug("closed session {}", spec.label());
        } finally {
            lock.writeLock().unlock();
        }
    }
}
