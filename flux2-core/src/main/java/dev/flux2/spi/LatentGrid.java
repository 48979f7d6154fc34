package dev.flux2.spi;

import dev.flux2.api.RequestRules;
import java.util.Objects;

/**
 * A batch-1 latent in NCHW layout: {@code data[(c·height + y)·width + x]}. The array is shared, not copied:
 * whoever creates a grid hands the array over.
 *
 * <p>What crosses the SPI is the normalised, patchified latent of {@link #CHANNELS} channels on the token grid
 * (W/16 × H/16); the pipeline also uses the type for the 32-channel VAE layout inside its latent math.
 *
 * @param data channels·height·width values, C order (channel, row, column)
 * @param channels number of channels ({@link #CHANNELS} patchified, 32 for the raw VAE latent)
 * @param width columns
 * @param height rows
 */
public record LatentGrid(float[] data, int channels, int width, int height) {
    /**
     * Channels of the patchified FLUX.2 latent (32 VAE channels × 2×2 patches): the feature count of every latent
     * token the transformer reads and writes, and of the grids the VAE encoder returns and the decoder takes.
     */
    public static final int CHANNELS = RequestRules.LATENT_CHANNELS;

    /** Validates the length. */
    public LatentGrid {
        Objects.requireNonNull(data, "data");
        if (channels < 1 || width < 1 || height < 1 || data.length != (long) channels * width * height) {
            throw new IllegalArgumentException("latent of " + channels + " channels on a " + width + "x" + height
                    + " grid needs " + ((long) channels * width * height) + " values, got " + data.length);
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
