package dev.flux2.api;

/**
 * Receives progress events of a running generation, on the generating thread. Implementations must be quick and
 * must not throw; an exception thrown by a listener is logged and otherwise ignored.
 */
@FunctionalInterface
public interface ProgressListener {
    /** A listener that ignores every event. */
    ProgressListener NONE = event -> {};

    /** @param event the event */
    void onProgress(ProgressEvent event);
}
