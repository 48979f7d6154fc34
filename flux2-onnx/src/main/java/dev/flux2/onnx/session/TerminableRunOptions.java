package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession.RunOptions;
import dev.flux2.spi.StageContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RunOptions} of one run, wired to the generation's cancellation: cancelling sets the terminate flag, which
 * ONNX Runtime checks between graph nodes (docs/design-notes.md §6). One instance per run because the flag is sticky.
 *
 * <p>Cancellation hooks may fire on another thread at any time, including after the run: {@link #terminate()} and
 * {@link #close()} are synchronized and terminate is a no-op once closed, so the native handle is never used after
 * it is freed.
 */
final class TerminableRunOptions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TerminableRunOptions.class);

    private final RunOptions options;
    private final AutoCloseable registration;
    private boolean closed;

    /**
     * @param context the generation's context, whose cancellation terminates the run
     * @throws OrtException when the run options cannot be created
     */
    TerminableRunOptions(StageContext context) throws OrtException {
        this.options = new RunOptions();
        try {
            this.registration = context.onCancel(this::terminate);
        } catch (RuntimeException e) {
            options.close();
            throw e;
        }
    }

    RunOptions options() {
        return options;
    }

    synchronized void terminate() {
        if (closed) {
            return;
        }
        try {
            options.setTerminate(true);
        } catch (OrtException e) {
            // The hook must not throw into the cancelling thread; the run then ends at the next step boundary.
            LOG.warn("could not set the terminate flag of a running inference call", e);
        }
    }

    @Override
    public void close() {
        try {
            registration.close();
        } catch (Exception e) {
            LOG.warn("could not unregister a cancellation hook", e);
        }
        synchronized (this) {
            if (!closed) {
                closed = true;
                options.close();
            }
        }
    }
}
