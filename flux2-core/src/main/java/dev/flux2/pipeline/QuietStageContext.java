package dev.flux2.pipeline;

import dev.flux2.api.Stage;
import dev.flux2.spi.StageContext;

/**
 * A generation's {@link StageContext} for backend calls made on the side (a preview's decode): cancellation, abort
 * hooks and runtime time pass through; progress is dropped, so that a preview's VAE chunks do not show up as the
 * generation's VAE_DECODE stage.
 */
final class QuietStageContext implements StageContext {
    private final StageContext delegate;

    QuietStageContext(StageContext delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean isCancelled() {
        return delegate.isCancelled();
    }

    @Override
    public void throwIfCancelled(String where) {
        delegate.throwIfCancelled(where);
    }

    @Override
    public AutoCloseable onCancel(Runnable abort) {
        return delegate.onCancel(abort);
    }

    @Override
    public void advance(Stage stage, int completed, int total) {
        // a side call's progress is not the generation's
    }

    @Override
    public void recordRuntimeNanos(long nanos) {
        delegate.recordRuntimeNanos(nanos);
    }
}
