package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.spi.PixelTensor;
import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.WritableRaster;
import org.junit.jupiter.api.Test;

class ImageConversionTest {
    /**
     * Finds x with {@code (x·0.5f + 0.5f)·255f == n + 0.5} exactly in float32, or NaN. Below n = 64 no such x
     * exists: u is then too coarse (2⁻²⁵ steps) for u·255 to round onto a half; 0.5, 1.5 and 2.5 are unreachable.
     */
    private static float xForHalf(int n) {
        float t = n + 0.5f;
        float u = (float) (t / 255.0);
        for (int i = 0; i < 200; i++) {
            u = Math.nextDown(u);
        }
        for (int i = 0; i < 400; i++, u = Math.nextUp(u)) {
            float x = (u - 0.5f) * 2f;
            if (x * 0.5f + 0.5f == u && u * 255f == t) {
                return x;
            }
        }
        return Float.NaN;
    }

    @Test
    void roundsExactHalvesToEven() {
        int tested = 0;
        for (int n = 64; n < 255; n++) {
            float x = xForHalf(n);
            assertTrue(!Float.isNaN(x), "no float x hits " + n + ".5");
            int expected = (n % 2 == 0) ? n : n + 1;
            assertEquals(expected, ImageConversion.toByte(x), "x = " + x + " gives u·255 = " + n + ".5");
            tested++;
        }
        assertEquals(191, tested);
        // u = 0.5 exactly: 127.5 → 128 (even); Math.round would agree here, 64.5 → 64 is where they differ
        assertEquals(128, ImageConversion.toByte(0f));
        assertEquals(64, ImageConversion.toByte(xForHalf(64)));
    }

    @Test
    void roundsAndClamps() {
        assertEquals(0, ImageConversion.toByte(-1f));
        assertEquals(255, ImageConversion.toByte(1f));
        assertEquals(0, ImageConversion.toByte(-7f));
        assertEquals(255, ImageConversion.toByte(5f));
        assertEquals(255, ImageConversion.toByte(Float.POSITIVE_INFINITY));
        assertEquals(0, ImageConversion.toByte(Float.NEGATIVE_INFINITY));
        assertEquals(0, ImageConversion.toByte(Float.NaN));
        // u·255 = 1.2 → 1 and 1.8 → 2
        assertEquals(1, ImageConversion.toByte(2f * (1.2f / 255f) - 1f));
        assertEquals(2, ImageConversion.toByte(2f * (1.8f / 255f) - 1f));
    }

    @Test
    void toImageIsPlanarRgb() {
        // 2x1 image: pixel 0 = (-1, 0, 1), pixel 1 = (1, -1, 0)
        PixelTensor p = new PixelTensor(new float[] {-1f, 1f, 0f, -1f, 1f, 0f}, 2, 1);
        BufferedImage img = ImageConversion.toImage(p);
        assertEquals(BufferedImage.TYPE_INT_RGB, img.getType());
        assertEquals(2, img.getWidth());
        assertEquals(1, img.getHeight());
        assertEquals(0x0080FF, img.getRGB(0, 0) & 0xFFFFFF);
        assertEquals(0xFF0080, img.getRGB(1, 0) & 0xFFFFFF);
    }

    @Test
    void toPixelsIsPlanarAndScaled() {
        BufferedImage img = new BufferedImage(2, 1, BufferedImage.TYPE_INT_RGB);
        img.setRGB(0, 0, 0x00FF80);
        img.setRGB(1, 0, 0x102030);
        PixelTensor p = ImageConversion.toPixels(img);
        assertEquals(2, p.width());
        assertEquals(1, p.height());
        float[] expected = {-1f, unit(0x10), 1f, unit(0x20), unit(0x80), unit(0x30)};
        assertArrayEquals(expected, p.data());
        assertEquals(1f, unit(255));
        assertEquals(-1f, unit(0));
    }

    /** diffusers: {@code np.float32(v) / 255.0} then {@code 2x − 1}, in float32. */
    private static float unit(int v) {
        float x = v / 255f;
        return 2f * x - 1f;
    }

    @Test
    void everyByteSurvivesTheRoundTrip() {
        BufferedImage img = new BufferedImage(256, 3, BufferedImage.TYPE_INT_RGB);
        for (int v = 0; v < 256; v++) {
            img.setRGB(v, 0, (v << 16) | ((255 - v) << 8) | (v * 7 & 0xFF));
            img.setRGB(v, 1, v * 0x010101);
            img.setRGB(v, 2, ((v * 13) & 0xFF) << 8);
        }
        BufferedImage back = ImageConversion.toImage(ImageConversion.toPixels(img));
        assertArrayEquals(img.getRGB(0, 0, 256, 3, null, 0, 256), back.getRGB(0, 0, 256, 3, null, 0, 256));
    }

    @Test
    void readsOtherImageTypesLikePilConvertRgb() {
        int[] rgb = new int[64];
        for (int i = 0; i < rgb.length; i++) {
            rgb[i] = ((i * 4) << 16) | ((255 - i * 3) << 8) | (i * 11 & 0xFF);
        }
        for (int type : new int[] {
            BufferedImage.TYPE_3BYTE_BGR,
            BufferedImage.TYPE_INT_BGR,
            BufferedImage.TYPE_INT_ARGB,
            BufferedImage.TYPE_4BYTE_ABGR
        }) {
            BufferedImage img = new BufferedImage(8, 8, type);
            for (int i = 0; i < rgb.length; i++) {
                // alpha 0 everywhere: PIL's convert("RGB") keeps the colour and drops alpha
                int alpha = (type == BufferedImage.TYPE_INT_ARGB || type == BufferedImage.TYPE_4BYTE_ABGR) ? 0 : 0xFF;
                img.setRGB(i % 8, i / 8, (alpha << 24) | rgb[i]);
            }
            assertArrayEquals(rgb, PackedRgb.read(img), "type " + type);
        }
    }

    @Test
    void greyIsReplicatedNotGammaConverted() {
        BufferedImage grey = new BufferedImage(256, 1, BufferedImage.TYPE_BYTE_GRAY);
        WritableRaster r = grey.getRaster();
        for (int v = 0; v < 256; v++) {
            r.setSample(v, 0, 0, v);
        }
        int[] packed = PackedRgb.read(grey);
        for (int v = 0; v < 256; v++) {
            assertEquals(v * 0x010101, packed[v], "grey " + v);
        }
        BufferedImage grey16 = new BufferedImage(2, 1, BufferedImage.TYPE_USHORT_GRAY);
        grey16.getRaster().setSample(0, 0, 0, 65535);
        grey16.getRaster().setSample(1, 0, 0, 0x8080);
        assertArrayEquals(new int[] {0xFFFFFF, 0x808080}, PackedRgb.read(grey16));
    }

    @Test
    void palettesAreLookedUp() {
        byte[] reds = {(byte) 10, (byte) 200};
        byte[] greens = {(byte) 20, (byte) 100};
        byte[] blues = {(byte) 30, (byte) 0};
        IndexColorModel cm = new IndexColorModel(1, 2, reds, greens, blues);
        BufferedImage img = new BufferedImage(2, 1, BufferedImage.TYPE_BYTE_BINARY, cm);
        img.getRaster().setSample(1, 0, 0, 1);
        assertArrayEquals(new int[] {0x0A141E, 0xC86400}, PackedRgb.read(img));
    }

    @Test
    void subImagesAreReadAtTheirOffset() {
        BufferedImage img = new BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                img.setRGB(x, y, y * 16 + x);
            }
        }
        assertArrayEquals(new int[] {17, 18, 33, 34}, PackedRgb.read(img.getSubimage(1, 1, 2, 2)));
    }
}
