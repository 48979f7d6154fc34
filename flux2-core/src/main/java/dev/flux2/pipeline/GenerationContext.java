package dev.flux2.pipeline;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InferenceException;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.ProgressListener;
import dev.flux2.api.Stage;
import dev.flux2.spi.StageContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StageContext} of one request: cancellation (from the request's token or from closing the pipeline),
 * abort hooks of running backend calls, progress events and per-stage timing. One generating thread drives the
 * stages; backends may call {@link #advance}, {@link #recordRuntimeNanos} and {@link #isCancelled} from any thread.
 */
final class GenerationContext implements StageContext {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationContext.class);

    private final ProgressReporter progress;
    private final TimingRecorder timings;
    /** Null while running; the cancellation reason once cancelled. */
    private final AtomicReference<String> cancelReason = new AtomicReference<>();

    private final List<Runnable> abortHooks = new CopyOnWriteArrayList<>();
    /** The latest stage begun; runtime time and backend progress are attributed to its image. */
    private volatile StageSpan current;

    /**
     * @param listener receives the events of this request
     * @param images number of images in the request (for timing)
     */
    GenerationContext(ProgressListener listener, int images) {
        this.progress = new ProgressReporter(listener);
        this.timings = new TimingRecorder(images);
    }

    /**
     * Cancels the generation and runs every registered abort hook. Idempotent: only the first reason is kept.
     *
     * @param reason why, for the exception message (for example "the pipeline was closed")
     */
    void cancel(String reason) {
        if (!cancelReason.compareAndSet(null, reason)) {
            return;
        }
        for (Runnable hook : abortHooks) {
            runHook(hook);
        }
    }

    private static void runHook(Runnable hook) {
        try {
            hook.run();
        } catch (RuntimeException e) {
            // Keep running the other hooks: one faulty abort action must not keep the others from stopping work.
            LOG.warn("Backend abort hook {} threw while cancelling a generation", hook, e);
        }
    }

    @Override
    public boolean isCancelled() {
        return cancelReason.get() != null;
    }

    @Override
    public void throwIfCancelled(String where) {
        String reason = cancelReason.get();
        if (reason != null) {
            throw new GenerationCancelledException(cancelledMessage(where, reason));
        }
    }

    private static String cancelledMessage(String where, String reason) {
        return "generation cancelled at " + where + " (" + reason + ")";
    }

    @Override
    public AutoCloseable onCancel(Runnable abort) {
        abortHooks.add(abort);
        if (isCancelled()) {
            runHook(abort);
        }
        return () -> abortHooks.remove(abort);
    }

    @Override
    public void advance(Stage stage, int completed, int total) {
        StageSpan span = current;
        if (span != null && span.stage == stage) {
            span.backendAdvanced(completed, total);
        } else {
            int image = span == null ? 0 : span.image;
            progress.emit(
                    new ProgressEvent(stage, ProgressEvent.Kind.ADVANCED, image, completed, total, Duration.ZERO));
        }
    }

    @Override
    public void recordRuntimeNanos(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("runtime nanos must be >= 0, got " + nanos);
        }
        StageSpan span = current;
        timings.addRuntime(span == null ? 0 : span.image, nanos);
    }

    /**
     * Starts a stage for one image: checks cancellation, emits {@code STARTED} and starts its clock.
     *
     * @param stage the stage
     * @param image the image index the stage's time is attributed to
     * @param total units of finer progress (1 when none)
     * @return the running stage; call {@link StageSpan#finish()} when it completed
     */
    StageSpan begin(Stage stage, int image, int total) {
        throwIfCancelled(stage + " of image " + (image + 1));
        StageSpan span = new StageSpan(stage, image, total);
        current = span;
        progress.emit(new ProgressEvent(stage, ProgressEvent.Kind.STARTED, image, 0, total, Duration.ZERO));
        return span;
    }

    /**
     * Runs one backend call. Checks cancellation first; maps any failure raised while the generation is cancelled
     * to {@link GenerationCancelledException} (keeping the runtime's error as cause), passes SDK exceptions through
     * and wraps anything else in an {@link InferenceException} naming the call.
     *
     * @param where the stage and position, for messages (for example "denoise step 2/4 of image 1")
     * @param action the backend call
     * @param <T> the call's result type
     * @return the call's result
     */
    <T> T call(String where, Supplier<T> action) {
        throwIfCancelled(where);
        try {
            return action.get();
        } catch (GenerationCancelledException e) {
            throw e;
        } catch (RuntimeException e) {
            String reason = cancelReason.get();
            if (reason != null) {
                throw new GenerationCancelledException(cancelledMessage(where, reason), e);
            }
            if (e instanceof Flux2Exception) {
                throw e;
            }
            throw new InferenceException(where + " failed in the backend: " + e, null, e);
        }
    }

    /**
     * Runs one backend call without result; see {@link #call}.
     *
     * @param where the stage and position, for messages
     * @param action the backend call
     */
    void run(String where, Runnable action) {
        call(where, () -> {
            action.run();
            return null;
        });
    }

    /** @return the timings recorded so far */
    TimingRecorder timings() {
        return timings;
    }

    /** One running stage of one image. Driven by the generating thread; the backend may report finer progress. */
    final class StageSpan {
        private final Stage stage;
        private final int image;
        private final long startNanos = System.nanoTime();
        private volatile int total;

        private StageSpan(Stage stage, int image, int total) {
            this.stage = stage;
            this.image = image;
            this.total = total;
        }

        /** @param completed units completed so far; emits {@code ADVANCED} */
        void advanced(int completed) {
            progress.emit(new ProgressEvent(stage, ProgressEvent.Kind.ADVANCED, image, completed, total, elapsed()));
        }

        private void backendAdvanced(int completed, int backendTotal) {
            this.total = backendTotal;
            advanced(completed);
        }

        /** Records the stage's wall time and emits {@code FINISHED}. */
        void finish() {
            long nanos = System.nanoTime() - startNanos;
            timings.addStage(image, stage, nanos);
            progress.emit(new ProgressEvent(
                    stage, ProgressEvent.Kind.FINISHED, image, total, total, Duration.ofNanos(nanos)));
        }

        private Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - startNanos);
        }
    }
}
