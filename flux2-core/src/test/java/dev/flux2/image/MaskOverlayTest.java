package dev.flux2.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * diffusers' {@code apply_overlay} with a crop, against the Pillow chain written out here in plain rounding:
 * {@code DIV255(x)} is {@code round(x/255)}, the RGBa → RGBA step {@code min(255, 255·p // a)}, and
 * {@code alpha_composite} over an opaque image {@code round((s·a + d·(255 − a))/255)}.
 */
class MaskOverlayTest {
    private static BufferedImage random(int w, int h, long seed) {
        Random r = new Random(seed);
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                image.setRGB(x, y, r.nextInt(1 << 24));
            }
        }
        return image;
    }

    /** The expected output pixel for one channel. */
    private static int expected(int init, int generated, int maskGrey) {
        int a = 255 - maskGrey; // ImageOps.invert; alpha of the pasted init = round(255·a/255) = a
        if (a == 0) {
            return generated;
        }
        int premultiplied = (int) Math.round(init * a / 255.0);
        int straight = a == 255 ? premultiplied : Math.min(255, 255 * premultiplied / a);
        return (int) Math.round((straight * a + generated * (255 - a)) / 255.0);
    }

    @Test
    void generatedCropIsCentreCroppedPastedAndBlendedThroughTheRawMask() {
        int w = 40;
        int h = 30;
        BufferedImage init = random(w, h, 1);
        BufferedImage generated = random(16, 12, 2);
        // region 10×14 at (20, 8): wider than tall against a 16×12 generated image
        CropRegion region = new CropRegion(20, 8, 30, 22);
        BufferedImage mask = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
        Random r = new Random(3);
        for (int y = region.y1(); y < region.y2(); y++) {
            for (int x = region.x1(); x < region.x2(); x++) {
                mask.getRaster().setSample(x, y, 0, r.nextInt(4) == 0 ? 255 : r.nextInt(256));
            }
        }
        BufferedImage out = MaskOverlay.apply(mask, init, generated, region);
        assertEquals(w, out.getWidth());
        assertEquals(h, out.getHeight());
        // Flux2ImageProcessor._resize_and_crop of 16×12 to 10×14: left (16 − 10) // 2 = 3, top (12 − 14) // 2 = −1
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int gen = 0;
                boolean inBox = x >= 20 && x < 30 && y >= 8 && y < 22;
                int gx = 3 + x - 20;
                int gy = -1 + y - 8;
                if (inBox && gy >= 0 && gy < 12) {
                    gen = generated.getRGB(gx, gy) & 0xFFFFFF;
                }
                int grey = mask.getRaster().getSample(x, y, 0);
                int in = init.getRGB(x, y) & 0xFFFFFF;
                int want = 0;
                for (int shift = 16; shift >= 0; shift -= 8) {
                    want |= expected((in >>> shift) & 0xFF, (gen >>> shift) & 0xFF, grey) << shift;
                }
                assertEquals(want, out.getRGB(x, y) & 0xFFFFFF, "pixel " + x + "," + y + " grey " + grey);
                if (grey == 0) {
                    assertEquals(in, out.getRGB(x, y) & 0xFFFFFF, "the init image where the mask is black");
                }
            }
        }
    }

    @Test
    void everyChannelValueAndMaskLevelAgreesWithThePlainRoundingChain() {
        for (int keep = 0; keep < 256; keep++) {
            for (int init = 0; init < 256; init += 5) {
                for (int gen = 0; gen < 256; gen += 3) {
                    int px = (MaskOverlay.composite(gen << 8, init << 8, keep) >>> 8) & 0xFF;
                    assertEquals(expected(init, gen, 255 - keep), px, init + " over " + gen + " keep " + keep);
                }
            }
        }
    }
}
