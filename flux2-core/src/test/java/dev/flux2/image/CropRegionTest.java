package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;

/**
 * diffusers' {@code get_crop_region}; every expected box is worked out by hand below from the Python source
 * (IMGPROC 288–375), not from the code under test.
 */
class CropRegionTest {
    /** A black {@code w×h} RGB mask with the box [x0, x1) × [y0, y1) white. */
    private static BufferedImage mask(int w, int h, int x0, int y0, int x1, int y1) {
        BufferedImage mask = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = y0; y < y1; y++) {
            for (int x = x0; x < x1; x++) {
                mask.setRGB(x, y, 0xFFFFFF);
            }
        }
        return mask;
    }

    @Test
    void tallBoxIsWidenedToTheWorkingAspectRatio() {
        // bbox (20, 10, 30, 50): 10/40 < 1, desired width 40, diff 30 → 15 on each side
        assertEquals(new CropRegion(5, 10, 45, 50), CropRegion.around(mask(64, 64, 20, 10, 30, 50), 64, 64, 0));
    }

    @Test
    void padGrowsTheBoxFirstAndIsClippedToTheMask() {
        // pad 4: (16, 6, 34, 54), 18×48; desired width 48, diff 30 → (1, 6, 49, 54)
        assertEquals(new CropRegion(1, 6, 49, 54), CropRegion.around(mask(64, 64, 20, 10, 30, 50), 64, 64, 4));
        // pad 20 clips at 0 and 64 first: (0, 0, 50, 64); 50/64 < 1: diff int(64 − 50) = 14
        // → (−7, 0, 57, 64); x1 < 0 moves it right by 7 → (0, 0, 64, 64)
        assertEquals(new CropRegion(0, 0, 64, 64), CropRegion.around(mask(64, 64, 20, 10, 30, 50), 64, 64, 20));
    }

    @Test
    void oddDifferenceGoesToTheRightAndFractionsTruncate() {
        // 3×10 → desired 10, diff 7: left 3, right 4
        assertEquals(new CropRegion(7, 10, 17, 20), CropRegion.around(mask(64, 64, 10, 10, 13, 20), 64, 64, 0));
        // 3×7 at ratio 48/32 = 1.5: desired width 10.5, diff int(7.5) = 7
        assertEquals(new CropRegion(17, 20, 27, 27), CropRegion.around(mask(64, 64, 20, 20, 23, 27), 48, 32, 0));
    }

    @Test
    void boxAtTheRightBorderIsShiftedBackInside() {
        // (56, 0, 64, 32): desired width 32, diff 24 → (44, 0, 76, 32), 12 over → (32, 0, 64, 32)
        assertEquals(new CropRegion(32, 0, 64, 32), CropRegion.around(mask(64, 64, 56, 0, 64, 32), 64, 64, 0));
    }

    @Test
    void wideBoxIsHeightenedAndAnExactFitAtTheBottomIsKept() {
        // (0, 30, 64, 34) at ratio 2: desired height 32, diff 28 → (0, 16, 64, 48); y2 = 48 >= 48 shifts by 0
        assertEquals(new CropRegion(0, 16, 64, 48), CropRegion.around(mask(64, 48, 0, 30, 64, 34), 64, 32, 0));
    }

    @Test
    void boxTallerThanTheMaskIsClippedToIt() {
        // (0, 0, 64, 2) at ratio 16/64: desired height 256, diff 254 → (0, −127, 64, 129) → shifted up by 81 →
        // (0, −208, 64, 48) → y1 < 0: (0, 0, 64, 256) → clipped: (0, 0, 64, 48), not the working aspect ratio
        assertEquals(new CropRegion(0, 0, 64, 48), CropRegion.around(mask(64, 48, 0, 0, 64, 2), 16, 64, 0));
    }

    @Test
    void anyGreyAboveZeroCountsAfterPillowsLumaConversion() {
        BufferedImage mask = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        mask.setRGB(40, 40, 0x030000); // L = (3·19595 + 32768) >> 16 = 1: counts
        mask.setRGB(5, 5, 0x010000); // L = (19595 + 32768) >> 16 = 0: ignored
        // (40, 40, 41, 41), 1×1 at ratio 1: no change
        assertEquals(new CropRegion(40, 40, 41, 41), CropRegion.around(mask, 64, 64, 0));
    }

    @Test
    void allBlackMaskHasNoRegion() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> CropRegion.around(new BufferedImage(32, 32, BufferedImage.TYPE_BYTE_GRAY), 32, 32, 8));
        assertTrue(e.getMessage().contains("all black"), e.getMessage());
    }
}
