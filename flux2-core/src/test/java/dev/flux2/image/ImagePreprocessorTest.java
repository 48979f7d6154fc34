package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.RequestRules;
import java.awt.image.BufferedImage;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ImagePreprocessorTest {
    private static BufferedImage gradient(int w, int h) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        int[] row = new int[w];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                row[x] = ((x * 7 + y) & 0xFF) << 16 | ((y * 3) & 0xFF) << 8 | ((x ^ y) & 0xFF);
            }
            img.setRGB(0, y, w, 1, row, 0, w);
        }
        return img;
    }

    private static int[] pixels(BufferedImage img) {
        int[] rgb = img.getRGB(0, 0, img.getWidth(), img.getHeight(), null, 0, img.getWidth());
        for (int i = 0; i < rgb.length; i++) {
            rgb[i] &= 0xFFFFFF;
        }
        return rgb;
    }

    /**
     * docs/pipeline-reference.md §10: 1500×1000 → s = 0.8360925 → 1254×836 → crop box (3, 2, 1251, 834) → 1248×832.
     */
    @Test
    void referenceExampleGeometry() {
        RequestRules.Size capped = RequestRules.capArea(1500, 1000);
        assertEquals(new RequestRules.Size(1254, 836), capped);
        assertEquals(0.8360925, Math.sqrt(1024.0 * 1024.0 / (1500.0 * 1000.0)), 1e-7);

        BufferedImage src = gradient(1500, 1000);
        BufferedImage out = ImagePreprocessor.prepareReference(src);
        assertEquals(1248, out.getWidth());
        assertEquals(832, out.getHeight());
        assertEquals(78 * 52, (out.getWidth() / 16) * (out.getHeight() / 16));
        assertEquals(BufferedImage.TYPE_INT_RGB, out.getType());
        BufferedImage resized = LanczosResampler.resize(src, 1254, 836);
        assertArrayEquals(pixels(resized.getSubimage(3, 2, 1248, 832)), pixels(out), "crop box (3, 2, 1251, 834)");
    }

    @Test
    void referenceBelowTheCapIsOnlyCentreCropped() {
        BufferedImage src = gradient(1000, 700);
        BufferedImage out = ImagePreprocessor.prepareReference(src);
        assertEquals(992, out.getWidth());
        assertEquals(688, out.getHeight());
        // offsets (1000 − 992)/2 = 4 and (700 − 688)/2 = 6, no resampling
        assertArrayEquals(pixels(src.getSubimage(4, 6, 992, 688)), pixels(out));

        BufferedImage exact = gradient(64, 48);
        assertArrayEquals(pixels(exact), pixels(ImagePreprocessor.prepareReference(exact)));
        // odd leftovers round the offset down: (71 − 64)/2 = 3
        BufferedImage odd = gradient(71, 64);
        assertArrayEquals(pixels(odd.getSubimage(3, 0, 64, 64)), pixels(ImagePreprocessor.prepareReference(odd)));
    }

    @Test
    void areaCapKeepsExactlyCappedImages() {
        assertEquals(new RequestRules.Size(1024, 1024), RequestRules.capArea(1024, 1024));
        assertEquals(new RequestRules.Size(2048, 512), RequestRules.capArea(2048, 512));
        RequestRules.Size s = RequestRules.capArea(2000, 1500);
        double scale = Math.sqrt(1048576.0 / 3_000_000.0);
        assertEquals(new RequestRules.Size((int) (2000 * scale), (int) (1500 * scale)), s);
        assertTrue((long) s.width() * s.height() <= RequestRules.MAX_AREA);
    }

    @Test
    void initWithExplicitSizeIsResizedExactly() {
        BufferedImage src = gradient(300, 200);
        BufferedImage out = ImagePreprocessor.prepareInit(src, OptionalInt.of(256), OptionalInt.of(128));
        assertEquals(256, out.getWidth());
        assertEquals(128, out.getHeight());
        assertArrayEquals(pixels(LanczosResampler.resize(src, 256, 128)), pixels(out));
    }

    @Test
    void initWithoutSizeFollowsTheInpaintConvention() {
        BufferedImage src = gradient(1000, 700);
        BufferedImage out = ImagePreprocessor.prepareInit(src, OptionalInt.empty(), OptionalInt.empty());
        assertEquals(992, out.getWidth());
        assertEquals(688, out.getHeight());
        // a resize to the floored size, not a crop
        assertArrayEquals(pixels(LanczosResampler.resize(src, 992, 688)), pixels(out));

        // above the cap: LANCZOS to the capped size, floor, LANCZOS again
        BufferedImage big = gradient(2000, 1500);
        BufferedImage capped = ImagePreprocessor.prepareInit(big, OptionalInt.empty(), OptionalInt.of(512));
        RequestRules.Size c = RequestRules.capArea(2000, 1500);
        assertEquals(c.width() / 16 * 16, capped.getWidth());
        assertEquals(c.height() / 16 * 16, capped.getHeight());
        BufferedImage twoStep = LanczosResampler.resize(
                LanczosResampler.resize(big, c.width(), c.height()), c.width() / 16 * 16, c.height() / 16 * 16);
        assertArrayEquals(pixels(twoStep), pixels(capped));
    }

    @Test
    void validatesSizesAndTinyImages() {
        BufferedImage src = gradient(64, 64);
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> ImagePreprocessor.prepareInit(src, OptionalInt.of(1000), OptionalInt.of(512)));
        assertTrue(e.getMessage().contains("width") && e.getMessage().contains("1000"), e.getMessage());
        e = assertThrows(
                InvalidRequestException.class,
                () -> ImagePreprocessor.prepareInit(src, OptionalInt.empty(), OptionalInt.of(0)));
        assertTrue(e.getMessage().contains("height"), e.getMessage());

        InvalidImageException tiny = assertThrows(
                InvalidImageException.class,
                () -> ImagePreprocessor.prepareInit(gradient(10, 40), OptionalInt.empty(), OptionalInt.empty()));
        assertTrue(tiny.getMessage().contains("10x40"), tiny.getMessage());
        assertThrows(
                InvalidImageException.class,
                () -> ImagePreprocessor.prepareInit(gradient(15, 15), OptionalInt.of(64), OptionalInt.of(64)));
        assertThrows(InvalidImageException.class, () -> ImagePreprocessor.prepareReference(gradient(15, 200)));
        // sides of 16..31 pixels floor to 16
        BufferedImage thin = ImagePreprocessor.prepareReference(gradient(31, 40));
        assertEquals(16, thin.getWidth());
        assertEquals(32, thin.getHeight());
    }

    @Test
    void alphaIsDroppedNotComposited() {
        BufferedImage argb = new BufferedImage(32, 32, BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < 32; y++) {
            for (int x = 0; x < 32; x++) {
                argb.setRGB(x, y, 0x00336699); // fully transparent
            }
        }
        BufferedImage out = ImagePreprocessor.prepareReference(argb);
        for (int p : pixels(out)) {
            assertEquals(0x336699, p);
        }
    }
}
