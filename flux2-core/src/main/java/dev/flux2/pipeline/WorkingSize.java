package dev.flux2.pipeline;

/**
 * The output size of a generation and the latent geometry it implies.
 *
 * @param width pixels, a multiple of 16
 * @param height pixels, a multiple of 16
 */
record WorkingSize(int width, int height) {
    /** Patchified latent channels (32 VAE channels × 2×2 patches). */
    static final int LATENT_CHANNELS = 128;
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

    /** @return 128·N, the number of latent values (noise length) */
    int latentValues() {
        return LATENT_CHANNELS * tokens();
    }

    @Override
    public String toString() {
        return width + "x" + height;
    }
}
