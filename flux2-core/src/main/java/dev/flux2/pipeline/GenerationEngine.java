package dev.flux2.pipeline;

import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.spi.Flux2Backend;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Runs generation requests against a backend it owns. Thread-safe: any number of {@link #generate} calls may run
 * concurrently (each holds the read side of a lock); {@link #close()} cancels them, waits for them (the write
 * side) and then closes the backend exactly once. Calls after {@code close()} throw
 * {@link PipelineClosedException}.
 */
public final class GenerationEngine implements AutoCloseable {
    private final Flux2Backend backend;
    private final ModelInfo modelInfo;
    private final GenerationLimits limits;
    /** The linear previews' projection, fitted to this backend's VAE decoder by the first generation that asks. */
    private final LinearPreviewFit linearPreview;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Set<GenerationContext> running = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean backendClosed = new AtomicBoolean();
    /** Set when close() was called from inside a generation (a progress listener) and so could not wait. */
    private final AtomicBoolean closeDeferred = new AtomicBoolean();

    /**
     * An engine with {@link GenerationLimits#defaults()}.
     *
     * @param backend the opened backend; the engine owns it from now on
     */
    public GenerationEngine(Flux2Backend backend) {
        this(backend, GenerationLimits.defaults());
    }

    /**
     * @param backend the opened backend; the engine owns it from now on (it is closed here if reading its model
     *     info fails)
     * @param limits the limits requests must keep, before {@link GenerationLimits#forModel} is applied
     */
    public GenerationEngine(Flux2Backend backend, GenerationLimits limits) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.linearPreview = new LinearPreviewFit(backend);
        try {
            this.modelInfo = Objects.requireNonNull(backend.modelInfo(), "backend returned no model info");
            this.limits = Objects.requireNonNull(limits, "limits").forModel(modelInfo);
        } catch (RuntimeException e) {
            try {
                backend.close();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    /**
     * Runs one request on the calling thread.
     *
     * @param request the validated request
     * @param controls the progress listener and cancellation token of this call
     * @return the images and timings
     * @throws PipelineClosedException when the engine is closed (or closes before the generation starts)
     * @throws dev.flux2.api.GenerationCancelledException when the request's token is cancelled or the engine is
     *     closed while generating
     */
    public GenerationResult generate(GenerationRequest request) {
        return generate(request, GenerationControls.none());
    }

    /**
     * Runs one request on the calling thread, with a progress listener and a cancellation token.
     *
     * @param request the validated request
     * @param controls the progress listener and cancellation token of this call
     * @return the images and timings
     * @throws PipelineClosedException when the engine is closed (or closes before the generation starts)
     * @throws dev.flux2.api.GenerationCancelledException when the token is cancelled or the engine is closed while
     *     generating
     */
    public GenerationResult generate(GenerationRequest request, GenerationControls controls) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(controls, "controls");
        checkOpen("generate");
        limits.checkRequest(request);
        if (!request.loras().isEmpty()) {
            // The graph side exists (dev.flux2.onnx.lora: structural matching, the lora-branches pass, the factor
            // feeds) but the stages do not feed it yet: refusing is better than an image silently without the LoRA.
            throw new InvalidRequestException("LoRA adapters are not applied by this pipeline yet (issue #30): got "
                    + request.loras().size() + " (" + request.loras().get(0)
                    + (request.loras().size() > 1 ? ", …" : "")
                    + "); remove them from the request");
        }
        lock.readLock().lock();
        try {
            GenerationContext context = new GenerationContext(controls.progressListener(), request.numImages());
            running.add(context);
            try {
                // Registered before this check, so a concurrent close() either sees this context and cancels it,
                // or has already set the flag that is checked here.
                checkOpen("generate");
                return generate(request, controls, context);
            } finally {
                running.remove(context);
            }
        } finally {
            lock.readLock().unlock();
            if (closeDeferred.get() && lock.getReadHoldCount() == 0) {
                closeBackend();
            }
        }
    }

    private GenerationResult generate(
            GenerationRequest request, GenerationControls controls, GenerationContext context) {
        AutoCloseable registration =
                controls.cancellation().map(token -> register(token, context)).orElse(null);
        try {
            GenerationRun.Previews previews = new GenerationRun.Previews(
                    controls.previews().orElse(null), controls.previewListener(), linearPreview);
            return new GenerationRun(backend, modelInfo, request, context, limits, previews).run();
        } finally {
            if (registration != null) {
                unregister(registration);
            }
        }
    }

    private static AutoCloseable register(CancellationToken token, GenerationContext context) {
        return token.onCancel(() -> context.cancel("the request's CancellationToken was cancelled"));
    }

    private static void unregister(AutoCloseable registration) {
        try {
            registration.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not unregister the cancellation hook", e);
        }
    }

    /** @return the limits in force: the configured ones, raised for the model's defaults */
    public GenerationLimits limits() {
        return limits;
    }

    /**
     * @return the model's identity and defaults
     * @throws PipelineClosedException after {@link #close()}
     */
    public ModelInfo modelInfo() {
        checkOpen("modelInfo");
        return modelInfo;
    }

    /**
     * Cancels running generations, waits for them to unwind and closes the backend. Idempotent. When called from
     * inside a generation (for example from a progress listener) it cannot wait for that generation: it cancels,
     * and the backend is closed as soon as the calling thread's generation has unwound.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            for (GenerationContext context : running) {
                context.cancel("the pipeline was closed");
            }
        }
        if (lock.getReadHoldCount() > 0) {
            closeDeferred.set(true);
            return;
        }
        closeBackend();
    }

    private void closeBackend() {
        lock.writeLock().lock();
        try {
            if (backendClosed.compareAndSet(false, true)) {
                backend.close();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void checkOpen(String call) {
        if (closed.get()) {
            throw new PipelineClosedException(
                    call + "() called on a closed Flux2Pipeline (model " + modelInfo.variant() + ")");
        }
    }
}
