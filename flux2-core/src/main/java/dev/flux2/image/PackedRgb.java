package dev.flux2.image;

import java.awt.color.ColorSpace;
import java.awt.image.BufferedImage;
import java.awt.image.ColorModel;
import java.awt.image.ComponentColorModel;
import java.awt.image.DataBuffer;
import java.awt.image.DataBufferInt;
import java.awt.image.DirectColorModel;
import java.awt.image.Raster;
import java.util.Objects;

/**
 * 8-bit RGB pixels packed as {@code 0xRRGGBB} ints, row-major, and conversions from and to {@link BufferedImage}.
 *
 * <p>Reading follows PIL's {@code convert("RGB")}, which is what the reference applies to user images: stored
 * sample values are used as they are (no ICC or gamma conversion), grey is replicated to R, G and B, palettes are
 * looked up, and alpha is dropped without compositing. Java's {@code getRGB} would instead colour-convert grey
 * images (brightening them), so it is only the fallback for models without direct RGB or grey samples
 * (premultiplied alpha, unusual colour spaces).
 */
final class PackedRgb {
    private PackedRgb() {}

    /**
     * @param image any image
     * @return {@code width·height} packed pixels
     */
    static int[] read(BufferedImage image) {
        Objects.requireNonNull(image, "image");
        int w = image.getWidth();
        int h = image.getHeight();
        int[] out = new int[Math.multiplyExact(w, h)];
        int type = image.getType();
        Raster raster = image.getRaster();
        if (type == BufferedImage.TYPE_INT_RGB || type == BufferedImage.TYPE_INT_ARGB) {
            int[] row = new int[w];
            for (int y = 0; y < h; y++) {
                raster.getDataElements(0, y, w, 1, row);
                int at = y * w;
                for (int x = 0; x < w; x++) {
                    out[at + x] = row[x] & 0xFFFFFF;
                }
            }
            return out;
        }
        ColorModel cm = image.getColorModel();
        if (hasDirectSamples(cm, raster)) {
            readSamples(raster, cm, out, w, h);
            return out;
        }
        int[] row = new int[w];
        for (int y = 0; y < h; y++) {
            image.getRGB(0, y, w, 1, row, 0, w);
            int at = y * w;
            for (int x = 0; x < w; x++) {
                out[at + x] = row[x] & 0xFFFFFF;
            }
        }
        return out;
    }

    private static boolean hasDirectSamples(ColorModel cm, Raster raster) {
        if (!(cm instanceof ComponentColorModel || cm instanceof DirectColorModel) || cm.isAlphaPremultiplied()) {
            return false;
        }
        int transfer = raster.getTransferType();
        if (transfer == DataBuffer.TYPE_FLOAT || transfer == DataBuffer.TYPE_DOUBLE) {
            return false;
        }
        int csType = cm.getColorSpace().getType();
        int colors = cm.getNumColorComponents();
        return (csType == ColorSpace.TYPE_RGB && colors == 3) || (csType == ColorSpace.TYPE_GRAY && colors == 1);
    }

    /** Raw samples in colour-model order (R, G, B[, A] or grey[, A]), rescaled to 8 bits when stored wider. */
    private static void readSamples(Raster raster, ColorModel cm, int[] out, int w, int h) {
        int bands = raster.getNumBands();
        boolean grey = cm.getNumColorComponents() == 1;
        int[] maxima = new int[grey ? 1 : 3];
        for (int i = 0; i < maxima.length; i++) {
            maxima[i] = (1 << cm.getComponentSize(i)) - 1;
        }
        int[] row = new int[w * bands];
        for (int y = 0; y < h; y++) {
            raster.getPixels(0, y, w, 1, row);
            int at = y * w;
            for (int x = 0, s = 0; x < w; x++, s += bands) {
                if (grey) {
                    int g = to8(row[s], maxima[0]);
                    out[at + x] = (g << 16) | (g << 8) | g;
                } else {
                    out[at + x] = (to8(row[s], maxima[0]) << 16)
                            | (to8(row[s + 1], maxima[1]) << 8)
                            | to8(row[s + 2], maxima[2]);
                }
            }
        }
    }

    private static int to8(int sample, int max) {
        if (max == 255) {
            return sample;
        }
        return (int) ((sample * 255L + max / 2) / max);
    }

    /**
     * @param rgb packed pixels, handed over (the image wraps a copy)
     * @param w width
     * @param h height
     * @return a {@code TYPE_INT_RGB} image
     */
    static BufferedImage toImage(int[] rgb, int w, int h) {
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        int[] dst = ((DataBufferInt) image.getRaster().getDataBuffer()).getData();
        System.arraycopy(rgb, 0, dst, 0, dst.length);
        return image;
    }

    /**
     * @param rgb packed pixels of a {@code w}-wide image
     * @param w source width
     * @param left first column kept
     * @param top first row kept
     * @param cw kept width
     * @param ch kept height
     * @return the {@code cw·ch} crop
     */
    static int[] crop(int[] rgb, int w, int left, int top, int cw, int ch) {
        int[] out = new int[cw * ch];
        for (int y = 0; y < ch; y++) {
            System.arraycopy(rgb, (top + y) * w + left, out, y * cw, cw);
        }
        return out;
    }
}
