package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;

/**
 * Compares a generated 8-bit image with expected [−1, 1] planar pixels.
 *
 * <p>Tolerance, and why: the expected pixels come from {@code SyntheticReference}, which rounds to fp16 exactly
 * where the graphs do but computes in double where ONNX Runtime computes in fp32. An fp32-vs-double difference
 * (≈1e-7 relative) can flip an fp16 rounding decision, which moves that value by one fp16 ulp (≤ 2^-11 relative);
 * the testkit bounds the resulting error of the whole VAE decoder chain by 2^-9 in [−1, 1], i.e. ≤ 0.25 of an 8-bit
 * step after the ×127.5 scaling, and latent flips reach the pixels damped by the same chain. So a byte can differ
 * only where the exact value sits within a quarter step of a rounding boundary: at most 1 LSB, and rarely —
 * hence also a bound on the mean.
 */
final class ImageComparison {
    /** The largest allowed per-channel difference in 8-bit steps. */
    static final int MAX_LSB = 1;
    /** The largest allowed mean per-channel difference in 8-bit steps. */
    static final double MAX_MEAN_LSB = 0.02;

    private ImageComparison() {}

    /**
     * @param image the generated image
     * @param expected planar RGB [3][H][W] in [−1, 1]
     * @param what for messages
     */
    static void assertMatches(BufferedImage image, float[] expected, String what) {
        assertMatches(image, expected, what, MAX_MEAN_LSB);
    }

    /**
     * @param image the generated image
     * @param expected planar RGB [3][H][W] in [−1, 1]
     * @param what for messages
     * @param maxMeanLsb the largest allowed mean difference in 8-bit steps (at most 1 LSB anywhere)
     */
    static void assertMatches(BufferedImage image, float[] expected, String what, double maxMeanLsb) {
        int w = image.getWidth();
        int h = image.getHeight();
        assertEquals(3 * w * h, expected.length, what + ": expected pixel count");
        int max = 0;
        long sum = 0;
        int distinct = 0;
        int previous = -1;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int rgb = image.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    int got = (rgb >> (16 - 8 * c)) & 0xFF;
                    int want = ExpectedImage.toByte(expected[(c * h + y) * w + x]);
                    int d = Math.abs(got - want);
                    max = Math.max(max, d);
                    sum += d;
                    if (want != previous) {
                        distinct++;
                        previous = want;
                    }
                }
            }
        }
        double mean = sum / (3.0 * w * h);
        assertTrue(distinct > 10, what + ": the expected image is nearly flat, the comparison would prove little");
        assertTrue(
                max <= MAX_LSB && mean <= maxMeanLsb,
                what + ": max difference " + max + " LSB, mean " + mean + " LSB (allowed " + MAX_LSB + ", " + maxMeanLsb
                        + ")");
    }

    /**
     * @param a one image
     * @param b another of the same size
     * @return the largest per-channel difference in 8-bit steps
     */
    static int maxDifference(BufferedImage a, BufferedImage b) {
        assertEquals(a.getWidth(), b.getWidth());
        assertEquals(a.getHeight(), b.getHeight());
        int max = 0;
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) {
                int p = a.getRGB(x, y);
                int q = b.getRGB(x, y);
                for (int s = 0; s < 24; s += 8) {
                    max = Math.max(max, Math.abs(((p >> s) & 0xFF) - ((q >> s) & 0xFF)));
                }
            }
        }
        return max;
    }
}
