package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * diffusers' {@code _resize_and_fill}: placement and the bands made by Pillow's zero-size-box resize, each band
 * line computed here from Pillow's fixed-point arithmetic (Resample.c) on the two edge lines.
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

    /**
     * One band pixel. The band resizes pass no resample, so Pillow's default bicubic (a = −0.5, support 2) applies:
     * at the box edge the two nearest lines get bicubic(0.5) = 0.5625 and bicubic(1.5) = −0.0625, normalised to
     * 1.125 and −0.125, quantised to 22 bits.
     */
    private static int band(int nearest, int next) {
        int k0 = (int) (1.125 * (1 << 22) + 0.5);
        int k1 = (int) (-0.125 * (1 << 22) - 0.5);
        int out = 0;
        for (int shift = 16; shift >= 0; shift -= 8) {
            int acc = (1 << 21) + ((nearest >>> shift) & 0xFF) * k0 + ((next >>> shift) & 0xFF) * k1;
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
            int top = band(src[x], src[32 + x]);
            int bottom = band(src[15 * 32 + x], src[14 * 32 + x]);
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
            int left = band(src[y * 16], src[y * 16 + 1]);
            int right = band(src[y * 16 + 15], src[y * 16 + 14]);
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
            assertEquals(band(src[15 * 32 + x], src[14 * 32 + x]), out[31 * 32 + x]);
        }
    }

    @Test
    void sameAspectRatioIsAPlainLanczosResize() {
        int[] src = random(64 * 32, 4);
        assertArrayEquals(LanczosResampler.resize(src, 64, 32, 32, 16), FillResize.fill(src, 64, 32, 32, 16));
    }
}
