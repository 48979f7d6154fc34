package dev.flux2.pipeline;

import java.awt.image.BufferedImage;
import java.util.List;

/**
 * The request's images after preprocessing (area cap, sides floored to multiples of 16; references centre-cropped),
 * ready for the VAE encoder.
 *
 * @param init the prepared init image for img2img, or null
 * @param references the prepared reference images, in order
 * @param tokenMask for inpainting, the mask on the init image's token grid (one value per token), else null
 * @param cropOverlay with {@code padding_mask_crop}, how to fit the result back into the init image, else null
 */
record PreparedImages(
        BufferedImage init, List<BufferedImage> references, float[] tokenMask, MaskCropOverlay cropOverlay) {
    PreparedImages {
        references = List.copyOf(references);
    }

    /** @return whether an init image was given */
    boolean hasInit() {
        return init != null;
    }

    /** @return whether this is inpainting (a mask with the init image) */
    boolean hasMask() {
        return tokenMask != null;
    }

    /** @return whether anything needs the VAE encoder */
    boolean isEmpty() {
        return init == null && references.isEmpty();
    }
}
