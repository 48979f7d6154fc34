package dev.flux2.image;

import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * The mask path of diffusers' {@code Flux2KleinInpaintPipeline} up to the pixel mask (docs/pipeline-reference.md
 * §15): the mask processor's {@code preprocess} with {@code resize_mode="default"}, i.e. a Lanczos resize of the mask
 * as {@code load_image} gives it (RGB) to the working size, PIL's {@code convert("L")}, {@code /255} in float32 and
 * {@code binarize} at one half (white = repaint, black = keep; grey is not partial). Stateless and thread-safe.
 */
public final class InpaintMask {
    /** {@code binarize}: values below one half become 0, the rest 1; on bytes, 128/255 is the first at or above. */
    static final int BINARIZE_FROM = 128;

    private InpaintMask() {}

    /**
     * @param mask the mask image (converted to RGB as PIL's {@code convert("RGB")} would); not modified
     * @param width the working width in pixels
     * @param height the working height in pixels
     * @return {@code width·height} values, each 0 (keep) or 1 (repaint), row-major
     * @throws InvalidRequestException if nothing is left to repaint (every value 0)
     */
    public static float[] binarized(BufferedImage mask, int width, int height) {
        Objects.requireNonNull(mask, "mask");
        int[] rgb = PackedRgb.read(mask);
        if (mask.getWidth() != width || mask.getHeight() != height) {
            rgb = LanczosResampler.resize(rgb, mask.getWidth(), mask.getHeight(), width, height);
        }
        return binarize(rgb, mask, width, height, "");
    }

    /**
     * The same with {@code padding_mask_crop}: the mask is cropped to the region and brought to the working size
     * with the "fill" resize ({@link FillResize}) before {@code convert("L")} and {@code binarize}.
     *
     * @param mask the raw mask (converted to RGB as PIL's {@code convert("RGB")} would); not modified
     * @param crop the crop region, inside the mask
     * @param width the working width in pixels
     * @param height the working height in pixels
     * @return {@code width·height} values, each 0 (keep) or 1 (repaint), row-major
     * @throws InvalidRequestException if nothing is left to repaint (every value 0)
     */
    public static float[] binarized(BufferedImage mask, CropRegion crop, int width, int height) {
        Objects.requireNonNull(mask, "mask");
        int[] rgb = PackedRgb.crop(
                PackedRgb.read(mask), mask.getWidth(), crop.x1(), crop.y1(), crop.width(), crop.height());
        rgb = FillResize.fill(rgb, crop.width(), crop.height(), width, height);
        return binarize(rgb, mask, width, height, " in the crop region " + crop);
    }

    private static float[] binarize(int[] rgb, BufferedImage mask, int width, int height, String where) {
        float[] out = new float[rgb.length];
        boolean any = false;
        for (int i = 0; i < rgb.length; i++) {
            if (luma(rgb[i]) >= BINARIZE_FROM) {
                out[i] = 1f;
                any = true;
            }
        }
        if (!any) {
            throw new InvalidRequestException("the mask of " + mask.getWidth() + "x" + mask.getHeight()
                    + " is all black at the working size " + width + "x" + height + where
                    + " (no pixel at or above grey level 128 after resizing): nothing to repaint");
        }
        return out;
    }

    /**
     * Pillow's RGB → L conversion ({@code Convert.c} {@code rgb2l}, ITU-R 601-2 luma in 16-bit fixed point).
     *
     * @param rgb a packed {@code 0xRRGGBB} pixel
     * @return its grey level, 0–255
     */
    static int luma(int rgb) {
        int r = (rgb >>> 16) & 0xFF;
        int g = (rgb >>> 8) & 0xFF;
        int b = rgb & 0xFF;
        return (r * 19595 + g * 38470 + b * 7471 + 0x8000) >>> 16;
    }
}
