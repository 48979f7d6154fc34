package dev.flux2.cli.testing;

import java.awt.image.BufferedImage;

/**
 * Per-channel differences between an image and expected packed RGB.
 *
 * @param maxAbs the largest difference of one channel value (0..255)
 * @param meanAbs the mean absolute difference over all channel values
 * @param differing the number of channel values that differ at all
 */
public record ImageComparison(int maxAbs, double meanAbs, int differing) {
    /**
     * @param image the actual image
     * @param expected packed 0xRRGGBB, row-major, same size
     * @return the differences
     */
    public static ImageComparison of(BufferedImage image, int[] expected) {
        int w = image.getWidth();
        int h = image.getHeight();
        if (expected.length != w * h) {
            throw new IllegalArgumentException("expected " + expected.length + " pixels, image has " + w + "x" + h);
        }
        int max = 0;
        long sum = 0;
        int differing = 0;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int a = image.getRGB(x, y);
                int e = expected[y * w + x];
                for (int shift = 0; shift <= 16; shift += 8) {
                    int d = Math.abs(((a >> shift) & 0xff) - ((e >> shift) & 0xff));
                    max = Math.max(max, d);
                    sum += d;
                    differing += d != 0 ? 1 : 0;
                }
            }
        }
        return new ImageComparison(max, sum / (3.0 * w * h), differing);
    }

    /**
     * @param expected packed RGB
     * @return the standard deviation of the channel values (a flat image would make a comparison meaningless)
     */
    public static double channelStdDev(int[] expected) {
        double sum = 0;
        double sq = 0;
        for (int p : expected) {
            for (int shift = 0; shift <= 16; shift += 8) {
                int v = (p >> shift) & 0xff;
                sum += v;
                sq += (double) v * v;
            }
        }
        double n = 3.0 * expected.length;
        double mean = sum / n;
        return Math.sqrt(Math.max(0, sq / n - mean * mean));
    }
}
