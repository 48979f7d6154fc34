package dev.flux2.bench.math;

import dev.flux2.spi.LatentGrid;

/**
 * The latent the math benchmarks use: 1024×1024 pixels, i.e. 64×64 = 4096 tokens of 128 channels
 * ([1, 4096, 128]), the largest latent a default generation handles.
 */
final class LatentShape {
    static final int CHANNELS = LatentGrid.CHANNELS;
    static final int GRID = 64;
    static final int TOKENS = GRID * GRID;
    static final int ELEMENTS = TOKENS * CHANNELS;

    private LatentShape() {}

    /** @return {@link #ELEMENTS} reproducible values in about [−4, 4] */
    static float[] values() {
        float[] v = new float[ELEMENTS];
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(42);
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (rnd.nextDouble() * 8 - 4);
        }
        return v;
    }
}
