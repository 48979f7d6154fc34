package dev.flux2.math;

import java.util.Objects;

/**
 * A batch-1 latent in NCHW layout: {@code data[(c·height + y)·width + x]}. The array is shared, not copied:
 * whoever creates a grid hands the array over.
 *
 * @param data channels·height·width values, C order
 * @param channels number of channels (32 for the raw VAE latent, 128 patchified)
 * @param height rows
 * @param width columns
 */
public record LatentGrid(float[] data, int channels, int height, int width) {
    /** Validates the length. */
    public LatentGrid {
        Objects.requireNonNull(data, "data");
        if (channels < 1 || height < 1 || width < 1 || data.length != channels * height * width) {
            throw new IllegalArgumentException("latent of " + channels + "x" + height + "x" + width + " needs "
                    + ((long) channels * height * width) + " values, got " + data.length);
        }
    }

    /**
     * @param c channel
     * @param y row
     * @param x column
     * @return the value
     */
    public float get(int c, int y, int x) {
        return data[(c * height + y) * width + x];
    }
}
