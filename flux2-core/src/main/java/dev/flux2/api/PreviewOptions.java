package dev.flux2.api;

import java.util.Objects;

/**
 * Which live previews a generation makes ({@link GenerationControls#withPreviews}): how ({@link PreviewMode}), after
 * which steps (every {@code everySteps}-th completed step of each image, never after the last one) and how large.
 *
 * @param mode {@link PreviewMode#LINEAR} (fast, approximate) or {@link PreviewMode#VAE} (exact, a full decode)
 * @param everySteps a preview after steps k, 2k, 3k, … of each image (counted as {@link ProgressEvent} counts them),
 *     at least 1
 * @param maxSize the preview's longer side in pixels, {@value #MIN_SIZE} … {@value #MAX_SIZE}, or 0 for the mode's
 *     own size (LINEAR: W/8 × H/8; VAE: the working size); otherwise the preview is scaled (bilinear, up or down)
 *     to this longer side, keeping the aspect ratio
 */
public record PreviewOptions(PreviewMode mode, int everySteps, int maxSize) {
    /** The smallest {@code maxSize} other than 0. */
    public static final int MIN_SIZE = 16;
    /** The largest {@code maxSize}. */
    public static final int MAX_SIZE = 4096;

    /** Validates the values. */
    public PreviewOptions {
        Objects.requireNonNull(mode, "mode");
        if (everySteps < 1) {
            throw new InvalidRequestException("preview everySteps must be at least 1, got " + everySteps);
        }
        if (maxSize != 0 && (maxSize < MIN_SIZE || maxSize > MAX_SIZE)) {
            throw new InvalidRequestException("preview maxSize must be 0 (the mode's own size) or " + MIN_SIZE + " … "
                    + MAX_SIZE + " pixels, got " + maxSize);
        }
    }

    /**
     * @param everySteps a preview every this many steps
     * @return linear previews of the mode's own size
     */
    public static PreviewOptions linear(int everySteps) {
        return new PreviewOptions(PreviewMode.LINEAR, everySteps, 0);
    }

    /**
     * @param everySteps a full VAE decode every this many steps
     * @return exact previews of the working size
     */
    public static PreviewOptions vae(int everySteps) {
        return new PreviewOptions(PreviewMode.VAE, everySteps, 0);
    }

    /**
     * @param size the longer side in pixels, or 0 for the mode's own size
     * @return a copy with this size
     */
    public PreviewOptions withMaxSize(int size) {
        return new PreviewOptions(mode, everySteps, size);
    }

    /**
     * @param completed steps completed for an image
     * @param steps the steps it runs
     * @return whether a preview follows that step
     */
    public boolean previewsAfter(int completed, int steps) {
        return completed < steps && completed % everySteps == 0;
    }
}
