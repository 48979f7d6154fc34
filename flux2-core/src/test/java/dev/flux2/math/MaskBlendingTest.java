package dev.flux2.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The latent mask and the per-step blending of diffusers' klein inpaint pipeline, against formulas written here. */
class MaskBlendingTest {
    /**
     * The reference samples bilinearly at (dst + 0.5)·16 − 0.5 = 16·dst + 7.5: the mean of the central 2×2 pixels of
     * each 16×16 block, whatever the rest of the block holds.
     */
    @Test
    void tokenMaskIsTheMeanOfEachBlocksCentralFourPixels() {
        int w = 48;
        int h = 32;
        Random random = new Random(7);
        float[] mask = new float[w * h];
        for (int i = 0; i < mask.length; i++) {
            mask[i] = random.nextBoolean() ? 1f : 0f;
        }
        float[] tokens = MaskBlending.tokenMask(mask, w, h, 3, 2);
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                int r = 16 * i + 7;
                int c = 16 * j + 7;
                double mean =
                        (mask[r * w + c] + mask[r * w + c + 1] + mask[(r + 1) * w + c] + mask[(r + 1) * w + c + 1])
                                / 4.0;
                assertEquals(mean, tokens[i * 3 + j], 0.0, "token " + i + "," + j);
            }
        }
    }

    @Test
    void blockAlignedRectangleGivesABinaryTokenMask() {
        int w = 64;
        int h = 32;
        float[] mask = new float[w * h];
        for (int y = 16; y < 32; y++) {
            for (int x = 16; x < 48; x++) {
                mask[y * w + x] = 1f;
            }
        }
        float[] tokens = MaskBlending.tokenMask(mask, w, h, 4, 2);
        float[] expected = {0, 0, 0, 0, 0, 1, 1, 0};
        for (int t = 0; t < expected.length; t++) {
            assertEquals(expected[t], tokens[t], "token " + t);
        }
    }

    @Test
    void blendKeepsTheInitNoisedToTheNextSigmaAndTheCleanInitAfterTheLastStep() {
        int tokens = 3;
        int n = tokens * 128;
        Random random = new Random(3);
        float[] x = new float[n];
        float[] x0 = new float[n];
        float[] noise = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) random.nextGaussian();
            x0[i] = (float) random.nextGaussian();
            noise[i] = (float) random.nextGaussian();
        }
        float[] mask = {0f, 1f, 0.25f};
        float sigma = 0.7041117f;
        for (boolean last : new boolean[] {false, true}) {
            float[] out = x.clone();
            MaskBlending.blend(out, x0, noise, mask, sigma, last);
            for (int i = 0; i < n; i++) {
                float m = mask[i / 128];
                float init = last ? x0[i] : (float) (sigma * noise[i]) + (float) ((1f - sigma) * x0[i]);
                float expected = (float) ((1f - m) * init) + (float) (m * x[i]);
                assertEquals(expected, out[i], 0f, "value " + i + (last ? " (last step)" : ""));
            }
        }
        // mask 0 keeps the init exactly, mask 1 keeps the prediction exactly
        float[] out = x.clone();
        MaskBlending.blend(out, x0, noise, mask, sigma, true);
        assertEquals(x0[5], out[5], 0f);
        assertEquals(x[128 + 5], out[128 + 5], 0f);
    }

    @Test
    void mismatchedLengthsAreRefused() {
        assertThrows(
                IllegalArgumentException.class,
                () -> MaskBlending.blend(new float[256], new float[256], new float[256], new float[1], 0.5f, false));
        assertThrows(IllegalArgumentException.class, () -> MaskBlending.tokenMask(new float[10], 16, 16, 1, 1));
    }
}
