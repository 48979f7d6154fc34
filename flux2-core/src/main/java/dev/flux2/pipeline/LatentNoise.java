package dev.flux2.pipeline;

import dev.flux2.math.TorchRandom;
import dev.flux2.spi.LatentGrid;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The initial noise of a request's images: drawn from {@code seed + k} for image k with the PyTorch-compatible
 * generator, or the caller's explicit noise (one image only). Noise lives in the patchified latent space
 * [128, H/16, W/16], C order, as {@code torch.randn(1, 128, H/16, W/16)} draws it.
 */
final class LatentNoise {
    private final long baseSeed;
    private final float[] explicit;

    private LatentNoise(long baseSeed, float[] explicit) {
        this.baseSeed = baseSeed;
        this.explicit = explicit;
    }

    /** @param baseSeed the seed of image 0 @return noise drawn from seeds baseSeed, baseSeed + 1, … */
    static LatentNoise seeded(long baseSeed) {
        return new LatentNoise(baseSeed, null);
    }

    /** @param noise the caller's noise, already validated against the working size; not copied @return it */
    static LatentNoise explicit(float[] noise) {
        return new LatentNoise(0L, Objects.requireNonNull(noise, "noise"));
    }

    /** @param image image index @return the seed of that image, empty for explicit noise */
    OptionalLong seedOf(int image) {
        return explicit != null ? OptionalLong.empty() : OptionalLong.of(baseSeed + image);
    }

    /**
     * @param image image index
     * @param size the working size
     * @return a fresh array of 128·(H/16)·(W/16) values in [128, H/16, W/16] order
     */
    float[] grid(int image, WorkingSize size) {
        if (explicit != null) {
            return explicit.clone();
        }
        return TorchRandom.randn(baseSeed + image, 1, LatentGrid.CHANNELS, size.gridHeight(), size.gridWidth());
    }
}
