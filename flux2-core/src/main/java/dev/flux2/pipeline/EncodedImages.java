package dev.flux2.pipeline;

import dev.flux2.spi.LatentGrid;

/**
 * The request's images in latent space.
 *
 * @param init the init image's normalised, patchified latent [128, H/16, W/16], or null
 * @param referenceTokens the packed reference latents, concatenated in order (M·128 values; empty without
 *     references)
 * @param referenceIds their position ids (M·4 values: (10(i+1), r, c, 0) for reference i)
 */
record EncodedImages(LatentGrid init, float[] referenceTokens, float[] referenceIds) {
    /** @return encoded images for a request without init or reference images */
    static EncodedImages none() {
        return new EncodedImages(null, new float[0], new float[0]);
    }
}
