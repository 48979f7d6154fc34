package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;

/** The mask processor of diffusers' klein inpaint pipeline, against values derived here from its definition. */
class InpaintMaskTest {
    /** ITU-R 601-2 luma in double, rounded: what Pillow's fixed-point {@code convert("L")} approximates. */
    private static double lumaReference(int r, int g, int b) {
        return 0.299 * r + 0.587 * g + 0.114 * b;
    }

    @Test
    void lumaMatchesTheItuWeightsAwayFromRoundingTies() {
        int checked = 0;
        for (int r = 0; r < 256; r += 17) {
            for (int g = 0; g < 256; g += 15) {
                for (int b = 0; b < 256; b += 51) {
                    double exact = lumaReference(r, g, b);
                    double frac = exact - Math.floor(exact);
                    if (Math.abs(frac - 0.5) < 0.01) {
                        continue; // fixed point and double may round a tie differently
                    }
                    assertEquals(Math.round(exact), InpaintMask.luma(r << 16 | g << 8 | b), r + "," + g + "," + b);
                    checked++;
                }
            }
        }
        assertTrue(checked > 1000, "checked " + checked);
        assertEquals(255, InpaintMask.luma(0xFFFFFF));
        assertEquals(0, InpaintMask.luma(0));
    }

    /** {@code binarize} on {@code v/255} in float32: 127/255 &lt; 0.5 ≤ 128/255, so grey is not partial. */
    @Test
    void binarizesAtOneHalf() {
        BufferedImage mask = new BufferedImage(32, 16, BufferedImage.TYPE_BYTE_GRAY);
        for (int x = 0; x < 32; x++) {
            for (int y = 0; y < 16; y++) {
                int v = x < 16 ? 127 : 128;
                mask.getRaster().setSample(x, y, 0, v);
            }
        }
        float[] m = InpaintMask.binarized(mask, 32, 16);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                boolean repaint = (128f / 255f) >= 0.5f && x >= 16;
                assertEquals(repaint ? 1f : 0f, m[y * 32 + x], "pixel " + x + "," + y);
            }
        }
        assertTrue(127f / 255f < 0.5f);
    }

    /** An RGB mask is converted to grey by luma, not by one channel: pure green (150) repaints, pure blue (29) keeps. */
    @Test
    void colourMasksUseLuma() {
        BufferedImage mask = new BufferedImage(16, 16, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 16; x++) {
                mask.setRGB(x, y, y < 8 ? 0x00FF00 : 0x0000FF);
            }
        }
        float[] m = InpaintMask.binarized(mask, 16, 16);
        assertEquals(1f, m[0]);
        assertEquals(0f, m[15 * 16]);
    }

    /** A 2× downscale keeps a white block white in its interior and black far from it (Lanczos-3 reach is 6 px). */
    @Test
    void resizesToTheWorkingSize() {
        BufferedImage mask = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 64; x++) {
                mask.setRGB(x, y, x >= 32 ? 0xFFFFFF : 0);
            }
        }
        float[] m = InpaintMask.binarized(mask, 32, 32);
        assertEquals(32 * 32, m.length);
        for (int y = 0; y < 32; y++) {
            assertEquals(0f, m[y * 32 + 5]);
            assertEquals(1f, m[y * 32 + 26]);
        }
    }

    @Test
    void allBlackMaskIsRefusedNamingIt() {
        BufferedImage mask = new BufferedImage(48, 32, BufferedImage.TYPE_INT_RGB);
        mask.setRGB(3, 3, 0x7F7F7F); // grey 127 is still "keep"
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> InpaintMask.binarized(mask, 48, 32));
        assertTrue(e.getMessage().contains("all black") && e.getMessage().contains("48x32"), e.getMessage());
    }
}
