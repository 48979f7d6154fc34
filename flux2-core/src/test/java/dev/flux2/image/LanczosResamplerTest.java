package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LanczosResamplerTest {
    private static BufferedImage image(int w, int h, int[] rgb) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        img.setRGB(0, 0, w, h, rgb, 0, w);
        return img;
    }

    private static int[] pixels(BufferedImage img) {
        int[] rgb = img.getRGB(0, 0, img.getWidth(), img.getHeight(), null, 0, img.getWidth());
        for (int i = 0; i < rgb.length; i++) {
            rgb[i] &= 0xFFFFFF;
        }
        return rgb;
    }

    /** A smooth pattern plus noise, so that both the filter shape and the clipping matter. */
    private static int[] pattern(int w, int h, long seed) {
        Random random = new Random(seed);
        int[] rgb = new int[w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int r = (int) (127 + 120 * Math.sin(x * 0.3) * Math.cos(y * 0.2)) + random.nextInt(9) - 4;
                int g = (x * 255 / Math.max(1, w - 1) + random.nextInt(5)) & 0xFF;
                int b = ((x / 3 + y / 2) % 2 == 0) ? 250 : 6; // even sum: no exact .5 ties
                rgb[y * w + x] = (clamp(r) << 16) | (clamp(g) << 8) | b;
            }
        }
        return rgb;
    }

    private static int clamp(int v) {
        return Math.max(0, Math.min(255, v));
    }

    @Test
    void constantImageStaysConstant() {
        int[][] sizes = {{37, 23, 16, 40}, {100, 60, 33, 17}, {5, 5, 64, 48}, {64, 64, 63, 65}};
        for (int[] s : sizes) {
            int[] rgb = new int[s[0] * s[1]];
            java.util.Arrays.fill(rgb, 0xC8640A);
            int[] out = pixels(LanczosResampler.resize(image(s[0], s[1], rgb), s[2], s[3]));
            for (int p : out) {
                assertEquals(0xC8640A, p, s[0] + "x" + s[1] + " -> " + s[2] + "x" + s[3]);
            }
        }
    }

    @Test
    void sameSizeIsAnIdentityCopy() {
        int[] rgb = pattern(31, 17, 1);
        BufferedImage src = image(31, 17, rgb);
        BufferedImage out = LanczosResampler.resize(src, 31, 17);
        assertNotSame(src, out);
        assertEquals(BufferedImage.TYPE_INT_RGB, out.getType());
        assertArrayEquals(rgb, pixels(out));
    }

    @Test
    void alternatingColumnsHalveToMidGrey() {
        int w = 40;
        int h = 4;
        int[] rgb = new int[w * h];
        for (int i = 0; i < rgb.length; i++) {
            rgb[i] = (i % w) % 2 == 0 ? 0 : 0xFFFFFF;
        }
        int[] out = pixels(LanczosResampler.resize(image(w, h, rgb), w / 2, h));
        // every output pixel straddles one black/white pair with a symmetric kernel: 127.5 up to fixed-point rounding
        for (int x = 3; x < w / 2 - 3; x++) {
            int v = out[x] & 0xFF;
            assertTrue(v == 127 || v == 128, "x = " + x + " gave " + v);
        }
    }

    /** Independent double-precision transcription of PIL's separable filter, with 8-bit rounding after each pass. */
    private static int[] reference(int[] src, int w, int h, int ow, int oh) {
        double[][] kx = weights(w, ow);
        double[][] ky = weights(h, oh);
        int[] lowX = lows(w, ow);
        int[] lowY = lows(h, oh);
        int[][] mid = new int[3][ow * h];
        for (int c = 0; c < 3; c++) {
            int shift = 16 - 8 * c;
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < ow; x++) {
                    double s = 0;
                    for (int k = 0; k < kx[x].length; k++) {
                        s += ((src[y * w + lowX[x] + k] >> shift) & 0xFF) * kx[x][k];
                    }
                    mid[c][y * ow + x] = ow == w ? (src[y * w + x] >> shift) & 0xFF : round8(s);
                }
            }
        }
        int[] out = new int[ow * oh];
        for (int y = 0; y < oh; y++) {
            for (int x = 0; x < ow; x++) {
                int p = 0;
                for (int c = 0; c < 3; c++) {
                    double s = 0;
                    for (int k = 0; k < ky[y].length; k++) {
                        s += mid[c][(lowY[y] + k) * ow + x] * ky[y][k];
                    }
                    int v = oh == h ? mid[c][y * ow + x] : round8(s);
                    p |= v << (16 - 8 * c);
                }
                out[y * ow + x] = p;
            }
        }
        return out;
    }

    private static int round8(double s) {
        return clamp((int) Math.floor(s + 0.5));
    }

    private static double lanczos3(double x) {
        if (x <= -3 || x >= 3) {
            return 0;
        }
        if (x == 0) {
            return 1;
        }
        return 3 * Math.sin(Math.PI * x) * Math.sin(Math.PI * x / 3) / (Math.PI * Math.PI * x * x);
    }

    private static int[] lows(int in, int out) {
        double scale = (double) in / out;
        double support = 3 * Math.max(scale, 1);
        int[] lows = new int[out];
        for (int i = 0; i < out; i++) {
            lows[i] = Math.max(0, (int) ((i + 0.5) * scale - support + 0.5));
        }
        return lows;
    }

    private static double[][] weights(int in, int out) {
        double scale = (double) in / out;
        double filterScale = Math.max(scale, 1);
        double support = 3 * filterScale;
        double[][] w = new double[out][];
        for (int i = 0; i < out; i++) {
            double center = (i + 0.5) * scale;
            int lo = Math.max(0, (int) (center - support + 0.5));
            int hi = Math.min(in, (int) (center + support + 0.5));
            w[i] = new double[hi - lo];
            double sum = 0;
            for (int j = lo; j < hi; j++) {
                // tap j covers [j, j+1): distance of its centre from the output centre, in filter units
                w[i][j - lo] = lanczos3((j + 0.5 - center) / filterScale);
                sum += w[i][j - lo];
            }
            for (int k = 0; k < w[i].length; k++) {
                w[i][k] /= sum;
            }
        }
        return w;
    }

    @Test
    void matchesAnIndependentTranscriptionWithinOneLevel() {
        int[][] cases = {{40, 30, 17, 13}, {20, 15, 37, 29}, {300, 200, 251, 167}, {64, 48, 64, 20}, {33, 21, 12, 21}};
        for (int[] c : cases) {
            int[] src = pattern(c[0], c[1], c[0] * 31L + c[1]);
            int[] actual = pixels(LanczosResampler.resize(image(c[0], c[1], src), c[2], c[3]));
            int[] expected = reference(src, c[0], c[1], c[2], c[3]);
            int exact = 0;
            for (int i = 0; i < expected.length; i++) {
                for (int shift = 0; shift <= 16; shift += 8) {
                    int e = (expected[i] >> shift) & 0xFF;
                    int a = (actual[i] >> shift) & 0xFF;
                    assertTrue(
                            Math.abs(e - a) <= 1,
                            c[0] + "x" + c[1] + " -> " + c[2] + "x" + c[3] + " pixel " + i + " channel shift " + shift
                                    + ": expected " + e + ", got " + a);
                    exact += e == a ? 1 : 0;
                }
            }
            // fixed-point coefficients only move values that sit on a .5 tie in double (after an 8-bit pass)
            assertTrue(
                    exact >= 0.99 * 3 * expected.length,
                    "only " + exact + " of " + 3 * expected.length + " channel values are exact");
        }
    }

    @Test
    void downscaleWidensTheKernel() {
        // a single white column in black: after 4x downscale its energy spreads over more than one output column
        int w = 64;
        int[] rgb = new int[w * 2];
        rgb[32] = 0xFFFFFF;
        rgb[w + 32] = 0xFFFFFF;
        int[] out = pixels(LanczosResampler.resize(image(w, 2, rgb), 16, 2));
        int lit = 0;
        for (int x = 0; x < 16; x++) {
            lit += (out[x] & 0xFF) > 0 ? 1 : 0;
        }
        assertTrue(lit >= 2, "antialiasing kernel must cover several output columns, lit = " + lit);
    }

    @Test
    void rejectsEmptyTargets() {
        BufferedImage src = image(4, 4, new int[16]);
        assertThrows(IllegalArgumentException.class, () -> LanczosResampler.resize(src, 0, 4));
        assertThrows(IllegalArgumentException.class, () -> LanczosResampler.resize(src, 4, -1));
    }
}
