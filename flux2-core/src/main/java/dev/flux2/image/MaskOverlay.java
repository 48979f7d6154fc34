package dev.flux2.image;

import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * diffusers' {@code VaeImageProcessor.apply_overlay(mask, init_image, image, crop_coords)} for
 * {@code Flux2ImageProcessor} (docs/pipeline-reference.md §15), in Pillow's integer arithmetic: the generated image
 * is centre-cropped (no resize: {@code Flux2ImageProcessor._resize_and_crop}) to the crop box and pasted at its
 * corner on black; the init image, premultiplied ({@code RGBa}) and pasted through the inverted grey mask, is
 * un-premultiplied and alpha-composited over it. Where the mask is black the result is the init image's pixel
 * exactly. Stateless and thread-safe.
 */
public final class MaskOverlay {
    /** {@code AlphaComposite.c}'s {@code PRECISION_BITS}. */
    private static final int PRECISION_BITS = 7;

    private MaskOverlay() {}

    /**
     * @param mask the raw mask, the init image's size (its grey level, not binarized, is the blend weight)
     * @param original the init image as the pipeline received it (after the 1024² area cap)
     * @param generated the generated image at the working size
     * @param crop the crop region from {@link CropRegion#around}
     * @return a new {@code TYPE_INT_RGB} image of the init image's size
     * @throws IllegalArgumentException if the mask and the init image differ in size, or the box leaves the image
     */
    public static BufferedImage apply(
            BufferedImage mask, BufferedImage original, BufferedImage generated, CropRegion crop) {
        Objects.requireNonNull(crop, "crop");
        int w = original.getWidth();
        int h = original.getHeight();
        if (mask.getWidth() != w || mask.getHeight() != h) {
            throw new IllegalArgumentException("mask " + mask.getWidth() + "x" + mask.getHeight() + " and init image "
                    + w + "x" + h + " must have the same size");
        }
        if (crop.x2() > w || crop.y2() > h || crop.x1() < 0 || crop.y1() < 0) {
            throw new IllegalArgumentException(crop + " leaves the " + w + "x" + h + " image");
        }
        int[] maskRgb = PackedRgb.read(mask);
        int[] init = PackedRgb.read(original);
        int[] gen = PackedRgb.read(generated);
        int gw = generated.getWidth();
        int gh = generated.getHeight();
        // Flux2ImageProcessor._resize_and_crop: Python floor division; PIL's crop fills outside with black
        int left = Math.floorDiv(gw - crop.width(), 2);
        int top = Math.floorDiv(gh - crop.height(), 2);
        int[] out = new int[w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int i = y * w + x;
                int base = 0;
                if (x >= crop.x1() && x < crop.x2() && y >= crop.y1() && y < crop.y2()) {
                    int gx = left + x - crop.x1();
                    int gy = top + y - crop.y1();
                    if (gx >= 0 && gx < gw && gy >= 0 && gy < gh) {
                        base = gen[gy * gw + gx] & 0xFFFFFF;
                    }
                }
                out[i] = composite(base, init[i], 255 - InpaintMask.luma(maskRgb[i]));
            }
        }
        return PackedRgb.toImage(out, w, h);
    }

    /**
     * One pixel: {@code init} converted RGB → RGBA → RGBa, pasted on transparent black through {@code keep},
     * converted back to RGBA, and alpha-composited over the opaque {@code base}.
     *
     * @param base the pasted generated pixel, {@code 0xRRGGBB}
     * @param init the init image's pixel, {@code 0xRRGGBB}
     * @param keep the inverted mask's grey level, 0–255
     * @return the result, {@code 0xRRGGBB}
     */
    static int composite(int base, int init, int keep) {
        // convert("RGBa") of an opaque pixel: MULDIV255(c, 255), which is c
        int a = div255(255 * keep); // paste_mask_L's BLEND onto 0, alpha channel
        if (a == 0) {
            return base;
        }
        int result = 0;
        for (int shift = 16; shift >= 0; shift -= 8) {
            int premultiplied = div255(muldiv255((init >>> shift) & 0xFF, 255) * keep);
            // rgba2rgbA: RGBa → RGBA
            int src = a == 255 ? premultiplied : Math.min(255, 255 * premultiplied / a);
            int dst = (base >>> shift) & 0xFF;
            result |= alphaComposite(src, a, dst) << shift;
        }
        return result;
    }

    /** {@code ImagingAlphaComposite} for one channel over an opaque destination (dst alpha 255). */
    private static int alphaComposite(int src, int srcAlpha, int dst) {
        long blend = 255L * (255 - srcAlpha);
        long outa255 = srcAlpha * 255L + blend;
        long coef1 = srcAlpha * 255L * 255L * (1 << PRECISION_BITS) / outa255;
        long coef2 = 255L * (1 << PRECISION_BITS) - coef1;
        long tmp = src * coef1 + dst * coef2 + (0x80L << PRECISION_BITS);
        return (int) (shiftForDiv255(tmp) >>> PRECISION_BITS);
    }

    private static long shiftForDiv255(long a) {
        return ((a >>> 8) + a) >>> 8;
    }

    /** Pillow's {@code DIV255}: {@code a/255} rounded, for 0 ≤ a ≤ 255·255. */
    private static int div255(int a) {
        int tmp = a + 128;
        return ((tmp >>> 8) + tmp) >>> 8;
    }

    private static int muldiv255(int a, int b) {
        return div255(a * b);
    }
}
