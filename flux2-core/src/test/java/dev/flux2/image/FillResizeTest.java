package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * diffusers' {@code _resize_and_fill}: placement and the bands made by Pillow's zero-size-box resize, each band
 * line computed here from Pillow's fixed-point Lanczos arithmetic on the three edge lines (Resample.c).
 */
class FillResizeTest {
    private static int[] random(int n, long seed) {
        Random r = new Random(seed);
        int[] rgb = new int[n];
        for (int i = 0; i < n; i++) {
            rgb[i] = r.nextInt(1 << 24);
        }
        return rgb;
    }

    private static double lanczos(double x) {
        return x == 0 ? 1 : 3 * Math.sin(Math.PI * x) * Math.sin(Math.PI * x / 3) / (Math.PI * Math.PI * x * x);
    }

    /** One band pixel: the three edge pixels a, b, c at Lanczos distances 0.5, 1.5, 2.5 from the box edge. */
    private static int band(int nearest, int middle, int farthest) {
        double[] w = {lanczos(0.5), lanczos(1.5), lanczos(2.5)};
        double sum = w[0] + w[1] + w[2];
        int[] k = new int[3];
        for (int i = 0; i < 3; i++) {
            double v = w[i] / sum * (1 << 22);
            k[i] = (int) (v < 0 ? v - 0.5 : v + 0.5);
        }
        int[] px = {nearest, middle, farthest};
        int out = 0;
        for (int shift = 16; shift >= 0; shift -= 8) {
            int acc = 1 << 21;
            for (int i = 0; i < 3; i++) {
                acc += ((px[i] >>> shift) & 0xFF) * k[i];
            }
            out |= Math.max(0, Math.min(255, acc >> 22)) << shift;
        }
        return out;
    }

    @Test
    void wideSourceIsCentredWithRowBandsAboveAndBelow() {
        int[] src = random(32 * 16, 1);
        // ratio 1 < 2: src_w = 32, src_h = 16·32 // 32 = 16 (no resize), pasted at y = 16 − 8 = 8; bands of 8 rows
        int[] out = FillResize.fill(src, 32, 16, 32, 32);
        for (int x = 0; x < 32; x++) {
            for (int y = 0; y < 16; y++) {
                assertEquals(src[y * 32 + x], out[(y + 8) * 32 + x]);
            }
            int top = band(src[x], src[32 + x], src[64 + x]);
            int bottom = band(src[15 * 32 + x], src[14 * 32 + x], src[13 * 32 + x]);
            for (int y = 0; y < 8; y++) {
                assertEquals(top, out[y * 32 + x], "top band at " + x + "," + y);
                assertEquals(bottom, out[(24 + y) * 32 + x], "bottom band at " + x + "," + y);
            }
        }
    }

    @Test
    void tallSourceGetsColumnBands() {
        int[] src = random(16 * 32, 2);
        // ratio 1 > 0.5: src_w = 16·32 // 32 = 16, src_h = 32, pasted at x = 8; bands of 8 columns
        int[] out = FillResize.fill(src, 16, 32, 32, 32);
        for (int y = 0; y < 32; y++) {
            int left = band(src[y * 16], src[y * 16 + 1], src[y * 16 + 2]);
            int right = band(src[y * 16 + 15], src[y * 16 + 14], src[y * 16 + 13]);
            for (int x = 0; x < 8; x++) {
                assertEquals(left, out[y * 32 + x], "left band at " + x + "," + y);
                assertEquals(right, out[y * 32 + 24 + x], "right band at " + x + "," + y);
            }
            for (int x = 0; x < 16; x++) {
                assertEquals(src[y * 16 + x], out[y * 32 + 8 + x]);
            }
        }
    }

    @Test
    void oddLeftoverRowStaysBlackAsInDiffusers() {
        int[] src = random(32 * 16, 3);
        // height 33: pasted at y = 16 − 8 = 8, bands of 33 // 2 − 8 = 8 rows at 0 and 24: row 32 is never written
        int[] out = FillResize.fill(src, 32, 16, 32, 33);
        for (int x = 0; x < 32; x++) {
            assertEquals(0, out[32 * 32 + x]);
            assertEquals(band(src[15 * 32 + x], src[14 * 32 + x], src[13 * 32 + x]), out[31 * 32 + x]);
        }
    }

    @Test
    void sameAspectRatioIsAPlainLanczosResize() {
        int[] src = random(64 * 32, 4);
        assertArrayEquals(LanczosResampler.resize(src, 64, 32, 32, 16), FillResize.fill(src, 64, 32, 32, 16));
    }
}
