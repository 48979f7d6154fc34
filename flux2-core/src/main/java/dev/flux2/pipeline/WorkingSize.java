package dev.flux2.pipeline;

import dev.flux2.spi.LatentGrid;

/**
 * The output size of a generation and the latent geometry it implies.
 *
 * @param width pixels, a multiple of 16
 * @param height pixels, a multiple of 16
 */
record WorkingSize(int width, int height) {
    /** Pixels per latent token along each side (VAE factor 8 × patch 2). */
    static final int PIXELS_PER_TOKEN = 16;

    WorkingSize {
        if (width < PIXELS_PER_TOKEN
                || height < PIXELS_PER_TOKEN
                || width % PIXELS_PER_TOKEN != 0
                || height % PIXELS_PER_TOKEN != 0) {
            throw new IllegalArgumentException(
                    "working size must be positive multiples of 16, got " + width + "x" + height);
        }
    }

    /** @return W/16 */
    int gridWidth() {
        return width / PIXELS_PER_TOKEN;
    }

    /** @return H/16 */
    int gridHeight() {
        return height / PIXELS_PER_TOKEN;
    }

    /** @return N = (H/16)·(W/16), the number of image tokens */
    int tokens() {
        return gridWidth() * gridHeight();
    }

    /** @return {@value LatentGrid#CHANNELS}·N, the number of latent values (noise length) */
    int latentValues() {
        return LatentGrid.CHANNELS * tokens();
    }

    @Override
    public String toString() {
        return width + "x" + height;
    }
}
