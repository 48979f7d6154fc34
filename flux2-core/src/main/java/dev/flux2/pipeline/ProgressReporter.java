package dev.flux2.pipeline;

import dev.flux2.api.ProgressEvent;
import dev.flux2.api.ProgressListener;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Delivers progress events to the request's listener, isolating the generation from listener failures. */
final class ProgressReporter {
    private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);

    private final ProgressListener listener;
    /** Listener failures so far; events of one generation come from its thread, one at a time. */
    private int failures;

    ProgressReporter(ProgressListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Calls the listener. Its contract says it must not throw; when it does anyway, the failure is logged with the
     * event and the generation goes on, because a broken progress bar must not lose the user's image.
     */
    void emit(ProgressEvent event) {
        try {
            listener.onProgress(event);
        } catch (RuntimeException e) {
            // Once with the stack trace; a listener that throws on every event would otherwise print one per step.
            if (failures++ == 0) {
                LOG.warn(
                        "Progress listener {} threw on {}; ignoring this and its later exceptions and continuing",
                        listener.getClass().getName(),
                        event,
                        e);
            } else {
                LOG.debug(
                        "Progress listener {} threw again on {}: {}",
                        listener.getClass().getName(),
                        event,
                        e.toString());
            }
        }
    }
}
