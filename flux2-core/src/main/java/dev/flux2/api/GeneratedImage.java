package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * One generated image with its metadata.
 *
 * @param image an 8-bit RGB image ({@link BufferedImage#TYPE_INT_RGB}); owned by the caller
 * @param metadata how it was made
 */
public record GeneratedImage(BufferedImage image, GenerationMetadata metadata) {
    /** Checks for nulls. */
    public GeneratedImage {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(metadata, "metadata");
    }
}
