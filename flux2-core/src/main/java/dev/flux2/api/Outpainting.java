package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * Outpainting as inpainting: pads an image on its sides and makes the matching mask (white over the new border,
 * black over the original), to pass as {@link GenerationRequest.Builder#initImage(BufferedImage)} and
 * {@link GenerationRequest.Builder#mask(BufferedImage)}. The border repeats the nearest edge pixel, so the init
 * latent there is a smooth continuation rather than a hard black frame. Stateless and thread-safe.
 *
 * <pre>{@code
 * Outpainting.Canvas canvas = Outpainting.pad(photo, 0, 0, 256, 0); // 256 px more on the right
 * GenerationRequest request = GenerationRequest.builder("the beach continues")
 *         .initImage(canvas.image())
 *         .mask(canvas.mask())
 *         .strength(1.0)
 *         .build();
 * }</pre>
 */
public final class Outpainting {
    private static final int MULTIPLE = 16;

    private Outpainting() {}

    /**
     * The padded image and its mask.
     *
     * @param image the padded RGB image
     * @param mask the mask of the same size: white (repaint) on the border, black (keep) on the original
     */
    public record Canvas(BufferedImage image, BufferedImage mask) {}

    /**
     * @param image the image to extend; not modified
     * @param left pixels to add on the left, a multiple of 16 (0 allowed)
     * @param top pixels to add on top, a multiple of 16
     * @param right pixels to add on the right, a multiple of 16
     * @param bottom pixels to add at the bottom, a multiple of 16
     * @return the padded image and its mask
     * @throws InvalidRequestException if a side is negative or not a multiple of 16, or all sides are 0
     */
    public static Canvas pad(BufferedImage image, int left, int top, int right, int bottom) {
        Objects.requireNonNull(image, "image");
        check("left", left);
        check("top", top);
        check("right", right);
        check("bottom", bottom);
        if (left + top + right + bottom == 0) {
            throw new InvalidRequestException("outpainting needs at least one side > 0, got 0 on every side");
        }
        int w = image.getWidth();
        int h = image.getHeight();
        long pw = (long) w + left + right;
        long ph = (long) h + top + bottom;
        if (pw > Integer.MAX_VALUE / 4 / Math.max(ph, 1)) {
            throw new InvalidRequestException("padded size " + pw + "x" + ph + " is too large");
        }
        BufferedImage padded = new BufferedImage((int) pw, (int) ph, BufferedImage.TYPE_INT_RGB);
        BufferedImage mask = new BufferedImage((int) pw, (int) ph, BufferedImage.TYPE_BYTE_GRAY);
        int[] source = image.getRGB(0, 0, w, h, null, 0, w);
        int[] row = new int[(int) pw];
        for (int y = 0; y < ph; y++) {
            int sy = Math.min(Math.max(y - top, 0), h - 1);
            boolean inside = y >= top && y < top + h;
            for (int x = 0; x < pw; x++) {
                int sx = Math.min(Math.max(x - left, 0), w - 1);
                row[x] = source[sy * w + sx] & 0xFFFFFF;
                boolean keep = inside && x >= left && x < left + w;
                mask.getRaster().setSample(x, y, 0, keep ? 0 : 255);
            }
            padded.setRGB(0, y, (int) pw, 1, row, 0, (int) pw);
        }
        return new Canvas(padded, mask);
    }

    private static void check(String side, int pixels) {
        if (pixels < 0 || pixels % MULTIPLE != 0) {
            throw new InvalidRequestException(
                    "outpainting " + side + " must be a non-negative multiple of 16 pixels, got " + pixels);
        }
    }
}
