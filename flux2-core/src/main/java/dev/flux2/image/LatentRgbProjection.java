package dev.flux2.image;

import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import java.util.Objects;

/**
 * A linear map from one packed latent token (128 channels, {@code 4c + 2dy + dx}) to the RGB of its four 8×8-pixel
 * sub-blocks {@code (dy, dx)}: {@code rgb[dy][dx] = W_{dy,dx}·z + b_{dy,dx}}, in the VAE's output range [−1, 1]. The
 * live previews' fast mode: a latent of W/16 × H/16 tokens becomes a W/8 × H/8 image. Immutable and thread-safe.
 */
public final class LatentRgbProjection {
    /** Inputs per token: the latent channels and a constant 1 for the bias. */
    public static final int INPUTS = LatentGrid.CHANNELS + 1;
    /** Outputs per token: three colours for each of the 2×2 sub-blocks, {@code (2dy + dx)·3 + colour}. */
    public static final int OUTPUTS = 12;

    /** Weights transposed for the inner loop: {@code weights[output·INPUTS + input]}. */
    private final float[] weights;

    private LatentRgbProjection(float[] weights) {
        this.weights = weights;
    }

    /**
     * @param inputMajor {@code INPUTS·OUTPUTS} weights, row-major (input, output), the last input row being the bias
     * @return the projection
     */
    public static LatentRgbProjection of(double[] inputMajor) {
        Objects.requireNonNull(inputMajor, "inputMajor");
        if (inputMajor.length != INPUTS * OUTPUTS) {
            throw new IllegalArgumentException(
                    "a latent RGB projection has " + INPUTS * OUTPUTS + " weights, got " + inputMajor.length);
        }
        float[] w = new float[INPUTS * OUTPUTS];
        for (int i = 0; i < INPUTS; i++) {
            for (int o = 0; o < OUTPUTS; o++) {
                w[o * INPUTS + i] = (float) inputMajor[i * OUTPUTS + o];
            }
        }
        return new LatentRgbProjection(w);
    }

    /**
     * @param tokens packed latent tokens, {@code gridWidth·gridHeight·128} values, row-major tokens; not modified
     * @param gridWidth tokens per row
     * @param gridHeight token rows
     * @return planar RGB of {@code 2·gridWidth × 2·gridHeight} pixels, nominally in [−1, 1]
     */
    public PixelTensor project(float[] tokens, int gridWidth, int gridHeight) {
        int channels = LatentGrid.CHANNELS;
        if (tokens.length != (long) gridWidth * gridHeight * channels) {
            throw new IllegalArgumentException("expected " + gridWidth + "x" + gridHeight + " tokens of " + channels
                    + " channels, got " + tokens.length + " values");
        }
        int width = 2 * gridWidth;
        int height = 2 * gridHeight;
        int plane = width * height;
        float[] rgb = new float[3 * plane];
        for (int i = 0; i < gridHeight; i++) {
            for (int j = 0; j < gridWidth; j++) {
                int base = (i * gridWidth + j) * channels;
                for (int o = 0; o < OUTPUTS; o++) {
                    int w = o * INPUTS;
                    float sum = weights[w + channels];
                    for (int c = 0; c < channels; c++) {
                        sum += weights[w + c] * tokens[base + c];
                    }
                    int sub = o / 3;
                    int y = 2 * i + (sub >> 1);
                    int x = 2 * j + (sub & 1);
                    rgb[(o % 3) * plane + y * width + x] = sum;
                }
            }
        }
        return new PixelTensor(rgb, width, height);
    }
}
