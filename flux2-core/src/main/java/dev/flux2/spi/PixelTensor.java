package dev.flux2.spi;

import java.util.Objects;

/**
 * An RGB image as planar floats: {@code data[(c·height + y)·width + x]} for c = R, G, B, nominally in [−1, 1]
 * (the VAE's range). The array is shared, not copied.
 *
 * @param data 3·height·width values
 * @param width columns
 * @param height rows
 */
public record PixelTensor(float[] data, int width, int height) {
    /** Validates the length. */
    public PixelTensor {
        Objects.requireNonNull(data, "data");
        if (width < 1 || height < 1 || data.length != 3L * width * height) {
            throw new IllegalArgumentException("RGB image of " + width + "x" + height + " needs "
                    + (3L * width * height) + " values, got " + data.length);
        }
    }
}
