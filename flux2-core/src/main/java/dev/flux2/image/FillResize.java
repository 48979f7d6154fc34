package dev.flux2.image;

import dev.flux2.api.InvalidRequestException;

/**
 * diffusers' {@code VaeImageProcessor._resize_and_fill} (docs/pipeline-reference.md §15): the image is resized with
 * the processor's Lanczos resample to fit inside the target keeping its aspect ratio, pasted centred on black, and
 * the two empty bands are filled by Pillow resizes of a zero-height (or zero-width) box at the first and last row
 * (column). Those band resizes pass no resample, so they use {@code Image.resize}'s default, bicubic: every band
 * line is {@code 1.125·edge − 0.125·next} in Pillow's fixed point. Stateless and thread-safe.
 */
final class FillResize {
    private FillResize() {}

    /**
     * @param rgb {@code w·h} packed pixels; not modified
     * @param w source width
     * @param h source height
     * @param width target width
     * @param height target height
     * @return {@code width·height} packed pixels
     * @throws InvalidRequestException if the fitted image would have a side of 0 pixels
     */
    static int[] fill(int[] rgb, int w, int h, int width, int height) {
        double ratio = (double) width / height;
        double srcRatio = (double) w / h;
        int srcW = ratio < srcRatio ? width : (int) ((long) w * height / h);
        int srcH = ratio >= srcRatio ? height : (int) ((long) h * width / w);
        if (srcW < 1 || srcH < 1) {
            throw new InvalidRequestException("the mask crop region of " + w + "x" + h
                    + " pixels fits the working size "
                    + width + "x" + height + " as " + srcW + "x" + srcH + " pixels: a side would be empty; use a"
                    + " larger mask crop padding");
        }
        int[] resized = LanczosResampler.resize(rgb, w, h, srcW, srcH);
        int[] out = new int[width * height];
        paste(out, width, height, resized, srcW, srcH, width / 2 - srcW / 2, height / 2 - srcH / 2);
        if (ratio < srcRatio) {
            int fillHeight = height / 2 - srcH / 2;
            if (fillHeight > 0) {
                int[] topBand = LanczosResampler.resize(
                        PillowFilter.BICUBIC, resized, srcW, srcH, 0, 0, width, 0, width, fillHeight);
                paste(out, width, height, topBand, width, fillHeight, 0, 0);
                int[] bottomBand = LanczosResampler.resize(
                        PillowFilter.BICUBIC, resized, srcW, srcH, 0, srcH, width, srcH, width, fillHeight);
                paste(out, width, height, bottomBand, width, fillHeight, 0, fillHeight + srcH);
            }
        } else if (ratio > srcRatio) {
            int fillWidth = width / 2 - srcW / 2;
            if (fillWidth > 0) {
                int[] leftBand = LanczosResampler.resize(
                        PillowFilter.BICUBIC, resized, srcW, srcH, 0, 0, 0, height, fillWidth, height);
                paste(out, width, height, leftBand, fillWidth, height, 0, 0);
                int[] rightBand = LanczosResampler.resize(
                        PillowFilter.BICUBIC, resized, srcW, srcH, srcW, 0, srcW, height, fillWidth, height);
                paste(out, width, height, rightBand, fillWidth, height, fillWidth + srcW, 0);
            }
        }
        return out;
    }

    /** Pillow's {@code paste(image, (left, top))} without a mask: the part inside the destination is copied. */
    static void paste(int[] dst, int dw, int dh, int[] src, int sw, int sh, int left, int top) {
        for (int y = Math.max(0, -top); y < sh && y + top < dh; y++) {
            int x0 = Math.max(0, -left);
            int x1 = Math.min(sw, dw - left);
            if (x1 > x0) {
                System.arraycopy(src, y * sw + x0, dst, (y + top) * dw + left + x0, x1 - x0);
            }
        }
    }
}
