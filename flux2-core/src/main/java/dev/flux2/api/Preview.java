package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * A live preview of one image during denoising: the predicted clean image x̂₀ = x_t − σ_t·v after a step
 * (docs/embedding.md, "Live previews").
 *
 * @param imageIndex index of the image within the request (0 … numImages−1)
 * @param step steps completed for this image (1 … steps−1; no preview follows the last step, whose image is the result)
 * @param steps the steps this image runs (for img2img, those after the start index), as in {@link ProgressEvent}
 * @param mode how the pixels were made
 * @param image the preview; a new image owned by the receiver
 */
public record Preview(int imageIndex, int step, int steps, PreviewMode mode, BufferedImage image) {
    /** Validates the values. */
    public Preview {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(image, "image");
        if (imageIndex < 0 || step < 1 || step > steps) {
            throw new IllegalArgumentException(
                    "preview of image " + imageIndex + " at step " + step + " of " + steps + " is out of range");
        }
    }
}
