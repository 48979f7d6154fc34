package dev.flux2.api;

import java.util.List;
import java.util.Objects;

/**
 * The images of one request, in seed order, and the request's overall timings.
 *
 * @param images one entry per requested image (image k used seed + k)
 * @param timings per-stage wall time of the whole request (text encoding is shared by its images)
 */
public record GenerationResult(List<GeneratedImage> images, StageTimings timings) {
    /** Copies the list. */
    public GenerationResult {
        images = List.copyOf(images);
        Objects.requireNonNull(timings, "timings");
        if (images.isEmpty()) {
            throw new IllegalArgumentException("a result holds at least one image");
        }
    }

    /** @return the first (for single-image requests: the only) image */
    public GeneratedImage first() {
        return images.get(0);
    }
}
