package dev.flux2.image;

import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * The box that diffusers' {@code padding_mask_crop} inpaints in: {@code VaeImageProcessor.get_crop_region}
 * (docs/pipeline-reference.md §15), in the mask's pixel coordinates, right and bottom exclusive.
 *
 * @param x1 left column
 * @param y1 top row
 * @param x2 right column, exclusive
 * @param y2 bottom row, exclusive
 */
public record CropRegion(int x1, int y1, int x2, int y2) {
    /** Validates that the box is not empty. */
    public CropRegion {
        if (x2 <= x1 || y2 <= y1) {
            throw new IllegalArgumentException("empty crop region (" + x1 + ", " + y1 + ", " + x2 + ", " + y2 + ")");
        }
    }

    /** @return the box width */
    public int width() {
        return x2 - x1;
    }

    /** @return the box height */
    public int height() {
        return y2 - y1;
    }

    /**
     * {@code get_crop_region(mask, width, height, pad)}: the bounding box of the pixels whose grey level (Pillow's
     * {@code convert("L")}) is not 0, grown by {@code pad} on every side and clipped to the mask, then grown along
     * one axis to the aspect ratio {@code width/height} (split in two, the odd pixel after) and shifted or clipped
     * back inside the mask, with Python's float and integer arithmetic.
     *
     * @param mask the raw mask, at the init image's size; converted to RGB as {@code load_image} does
     * @param width the working width the crop is resized to
     * @param height the working height the crop is resized to
     * @param pad the padding in pixels, ≥ 0
     * @return the region
     * @throws InvalidRequestException if every mask pixel is black (there is no region)
     */
    public static CropRegion around(BufferedImage mask, int width, int height, int pad) {
        Objects.requireNonNull(mask, "mask");
        if (pad < 0) {
            throw new IllegalArgumentException("pad must be >= 0, got " + pad);
        }
        int w = mask.getWidth();
        int h = mask.getHeight();
        int[] rgb = PackedRgb.read(mask);
        int left = w;
        int right = -1;
        int top = h;
        int bottom = -1;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                if (InpaintMask.luma(rgb[y * w + x]) != 0) {
                    left = Math.min(left, x);
                    right = Math.max(right, x);
                    top = Math.min(top, y);
                    bottom = Math.max(bottom, y);
                }
            }
        }
        if (right < 0) {
            throw new InvalidRequestException("the mask of " + w + "x" + h + " is all black (every pixel grey level"
                    + " 0): nothing to repaint, and no region for the mask crop padding");
        }
        // crop_left/right/top/bottom count the all-black columns and rows on each side
        int cropLeft = left;
        int cropRight = w - 1 - right;
        int cropTop = top;
        int cropBottom = h - 1 - bottom;
        int x1 = Math.max(cropLeft - pad, 0);
        int y1 = Math.max(cropTop - pad, 0);
        int x2 = (int) Math.min((long) w - cropRight + pad, w);
        int y2 = (int) Math.min((long) h - cropBottom + pad, h);
        double ratioCropRegion = (double) (x2 - x1) / (y2 - y1);
        double ratioProcessing = (double) width / height;
        if (ratioCropRegion > ratioProcessing) {
            double desiredHeight = (x2 - x1) / ratioProcessing;
            int diff = (int) (desiredHeight - (y2 - y1));
            y1 -= Math.floorDiv(diff, 2);
            y2 += diff - Math.floorDiv(diff, 2);
            if (y2 >= h) {
                int over = y2 - h;
                y2 -= over;
                y1 -= over;
            }
            if (y1 < 0) {
                y2 -= y1;
                y1 = 0;
            }
            if (y2 >= h) {
                y2 = h;
            }
        } else {
            double desiredWidth = (y2 - y1) * ratioProcessing;
            int diff = (int) (desiredWidth - (x2 - x1));
            x1 -= Math.floorDiv(diff, 2);
            x2 += diff - Math.floorDiv(diff, 2);
            if (x2 >= w) {
                int over = x2 - w;
                x2 -= over;
                x1 -= over;
            }
            if (x1 < 0) {
                x2 -= x1;
                x1 = 0;
            }
            if (x2 >= w) {
                x2 = w;
            }
        }
        return new CropRegion(x1, y1, x2, y2);
    }
}
