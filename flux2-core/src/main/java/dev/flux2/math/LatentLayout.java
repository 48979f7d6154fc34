package dev.flux2.math;

import dev.flux2.spi.LatentGrid;
import java.util.Objects;

/**
 * The FLUX.2 latent layouts (docs/pipeline-reference.md §5): 2×2 patchify of the 32-channel VAE latent into 128
 * channels, and packing of a patchified grid into a row-major token sequence. End to end,
 * {@code tokens[i·W+j][4c+2dy+dx] = z[c][2i+dy][2j+dx]}. Stateless and thread-safe; every method returns a new array
 * and leaves its input untouched.
 */
public final class LatentLayout {
    /** Tokens per tile of the pack/unpack transpose. */
    private static final int TILE = 32;

    private LatentLayout() {}

    /**
     * {@code [C, 2h, 2w] → [4C, h, w]} with {@code P[4c+2dy+dx, i, j] = z[c, 2i+dy, 2j+dx]}.
     *
     * @param z the VAE latent; height and width must be even
     * @return the patchified grid
     * @throws IllegalArgumentException if a spatial size is odd
     */
    public static LatentGrid patchify(LatentGrid z) {
        Objects.requireNonNull(z, "z");
        int height = z.height();
        int width = z.width();
        if ((height & 1) != 0 || (width & 1) != 0) {
            throw new IllegalArgumentException(
                    "patchify needs an even latent width and height, got " + width + "x" + height);
        }
        int h = height / 2;
        int w = width / 2;
        float[] src = z.data();
        float[] dst = new float[src.length];
        for (int c = 0; c < z.channels(); c++) {
            for (int y = 0; y < height; y++) {
                int srcRow = (c * height + y) * width;
                int plane = 4 * c + 2 * (y & 1);
                int dst0 = (plane * h + (y >> 1)) * w;
                int dst1 = ((plane + 1) * h + (y >> 1)) * w;
                for (int j = 0; j < w; j++) {
                    dst[dst0 + j] = src[srcRow + 2 * j];
                    dst[dst1 + j] = src[srcRow + 2 * j + 1];
                }
            }
        }
        return new LatentGrid(dst, 4 * z.channels(), w, h);
    }

    /**
     * The exact inverse of {@link #patchify}: {@code [4C, h, w] → [C, 2h, 2w]}.
     *
     * @param p the patchified grid; its channel count must be a multiple of 4
     * @return the VAE-layout latent
     * @throws IllegalArgumentException if the channel count is not a multiple of 4
     */
    public static LatentGrid unpatchify(LatentGrid p) {
        Objects.requireNonNull(p, "p");
        if (p.channels() % 4 != 0) {
            throw new IllegalArgumentException(
                    "unpatchify needs a channel count that is a multiple of 4, got " + p.channels());
        }
        int h = p.height();
        int w = p.width();
        int height = 2 * h;
        int width = 2 * w;
        int channels = p.channels() / 4;
        float[] src = p.data();
        float[] dst = new float[src.length];
        for (int c = 0; c < channels; c++) {
            for (int y = 0; y < height; y++) {
                int dstRow = (c * height + y) * width;
                int plane = 4 * c + 2 * (y & 1);
                int src0 = (plane * h + (y >> 1)) * w;
                int src1 = ((plane + 1) * h + (y >> 1)) * w;
                for (int j = 0; j < w; j++) {
                    dst[dstRow + 2 * j] = src[src0 + j];
                    dst[dstRow + 2 * j + 1] = src[src1 + j];
                }
            }
        }
        return new LatentGrid(dst, channels, width, height);
    }

    /**
     * Packs a grid into tokens: {@code tokens[(i·W + j)·C + f] = P[f, i, j]}, i.e. a {@code [H·W, C]} row-major
     * sequence in the order of {@link PositionIds#image}.
     *
     * @param p the patchified grid
     * @return {@code H·W·C} values
     */
    public static float[] pack(LatentGrid p) {
        Objects.requireNonNull(p, "p");
        int channels = p.channels();
        int tokens = p.height() * p.width();
        float[] src = p.data();
        float[] dst = new float[src.length];
        // a transpose [C, N] → [N, C], tiled so that both sides stay in cache
        for (int k0 = 0; k0 < tokens; k0 += TILE) {
            int k1 = Math.min(k0 + TILE, tokens);
            for (int f = 0; f < channels; f++) {
                int srcBase = f * tokens;
                for (int k = k0; k < k1; k++) {
                    dst[k * channels + f] = src[srcBase + k];
                }
            }
        }
        return dst;
    }

    /**
     * The inverse of {@link #pack}.
     *
     * @param tokens {@code height·width·channels} values in token-major order; not modified
     * @param channels features per token ({@link LatentGrid#CHANNELS} for FLUX.2)
     * @param width token-grid columns (W/16)
     * @param height token-grid rows (H/16)
     * @return the grid {@code [channels, height, width]}
     * @throws IllegalArgumentException if a size is below 1 or the length does not match
     */
    public static LatentGrid unpack(float[] tokens, int channels, int width, int height) {
        Objects.requireNonNull(tokens, "tokens");
        if (channels < 1 || height < 1 || width < 1 || (long) channels * height * width != tokens.length) {
            throw new IllegalArgumentException("unpack to " + channels + " channels on a " + width + "x" + height
                    + " grid needs " + ((long) channels * width * height) + " token values, got " + tokens.length);
        }
        int count = height * width;
        float[] dst = new float[tokens.length];
        for (int k0 = 0; k0 < count; k0 += TILE) {
            int k1 = Math.min(k0 + TILE, count);
            for (int f = 0; f < channels; f++) {
                int dstBase = f * count;
                for (int k = k0; k < k1; k++) {
                    dst[dstBase + k] = tokens[k * channels + f];
                }
            }
        }
        return new LatentGrid(dst, channels, width, height);
    }
}
