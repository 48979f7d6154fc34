package dev.flux2.pipeline;

import java.awt.image.BufferedImage;
import java.util.List;

/**
 * The request's images after preprocessing (area cap, sides floored to multiples of 16; references centre-cropped),
 * ready for the VAE encoder.
 *
 * @param init the prepared init image for img2img, or null
 * @param references the prepared reference images, in order
 */
record PreparedImages(BufferedImage init, List<BufferedImage> references) {
    PreparedImages {
        references = List.copyOf(references);
    }

    /** @return whether an init image was given */
    boolean hasInit() {
        return init != null;
    }

    /** @return whether anything needs the VAE encoder */
    boolean isEmpty() {
        return init == null && references.isEmpty();
    }
}
