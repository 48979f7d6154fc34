package dev.flux2.api;

import java.time.Duration;
import java.util.Objects;

/**
 * One progress notification.
 *
 * @param stage the stage the event belongs to
 * @param kind whether the stage started, advanced by one unit, or finished
 * @param imageIndex index of the image within the request (0 … numImages−1)
 * @param completed units completed so far within the stage (steps for {@link Stage#DENOISE}, attention chunks for
 *     {@link Stage#VAE_DECODE}); 0 for {@link Kind#STARTED}
 * @param total units in the stage (1 when the stage has no finer progress)
 * @param elapsed time since the stage started
 */
public record ProgressEvent(Stage stage, Kind kind, int imageIndex, int completed, int total, Duration elapsed) {

    /** The kind of a progress event. */
    public enum Kind {
        /** The stage began. */
        STARTED,
        /** One unit (a step, a chunk) of the stage completed. */
        ADVANCED,
        /** The stage completed. */
        FINISHED
    }

    /** Validates the event. */
    public ProgressEvent {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(elapsed, "elapsed");
    }
}
