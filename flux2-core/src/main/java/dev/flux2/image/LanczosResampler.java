package dev.flux2.image;

import java.awt.image.BufferedImage;
import java.util.Objects;

/**
 * Resizes like PIL's {@code Image.resize(size, Image.LANCZOS)} on an RGB image (Pillow
 * {@code libImaging/Resample.c}): a separable Lanczos-3 filter whose support is widened by the downscale factor
 * (antialiasing), coefficients normalised to sum 1 in double and then quantised to 22-bit fixed point, a horizontal
 * pass over just the rows the vertical pass needs, with each pass rounded and clipped to 8 bits. Stateless and
 * thread-safe.
 *
 * <p>The coefficients use {@link StrictMath#sin}, which may differ from the C library's {@code sin} in the last bit
 * of a double; that can move a fixed-point coefficient by one unit at most, i.e. results agree with PIL to within
 * one level and almost always exactly.
 *
 * <p>The same passes with Pillow's bicubic weights ({@link PillowFilter}) serve the few places where the
 * reference resizes without Lanczos (the "fill" bands of {@link FillResize}).
 */
public final class LanczosResampler {
    /** Pillow's {@code PRECISION_BITS = 32 − 8 − 2}. */
    private static final int PRECISION_BITS = 22;

    private LanczosResampler() {}

    /**
     * @param source any image (converted to RGB as PIL's {@code convert("RGB")} would, alpha dropped); not modified
     * @param width target width, at least 1
     * @param height target height, at least 1
     * @return a new {@code TYPE_INT_RGB} image; an unchanged copy when the size already matches (as PIL does)
     * @throws IllegalArgumentException if a target size is below 1
     */
    public static BufferedImage resize(BufferedImage source, int width, int height) {
        Objects.requireNonNull(source, "source");
        int[] rgb = PackedRgb.read(source);
        return PackedRgb.toImage(resize(rgb, source.getWidth(), source.getHeight(), width, height), width, height);
    }

    /**
     * The same on packed {@code 0xRRGGBB} pixels.
     *
     * @param rgb {@code inWidth·inHeight} pixels, row-major; not modified
     * @param inWidth source width
     * @param inHeight source height
     * @param width target width, at least 1
     * @param height target height, at least 1
     * @return {@code width·height} pixels (a copy of {@code rgb} when the size is unchanged)
     */
    static int[] resize(int[] rgb, int inWidth, int inHeight, int width, int height) {
        return resize(PillowFilter.LANCZOS, rgb, inWidth, inHeight, 0, 0, inWidth, inHeight, width, height);
    }

    /**
     * PIL's {@code Image.resize(size, filter, box=(x0, y0, x1, y1))} on packed pixels, with the same fixed-point
     * passes for every filter: the source region is the box, which may be empty along an axis ({@code x0 == x1}):
     * every output column (row) then reads the source columns (rows) next to the box edge with the weights
     * filter(0.5), (1.5), …, as diffusers' "fill" resize relies on. A box of exactly the target size is a plain
     * crop, as in Pillow.
     *
     * @param filter the resampling filter
     * @param rgb {@code inWidth·inHeight} pixels, row-major; not modified
     * @param inWidth source width
     * @param inHeight source height
     * @param x0 box left, 0 ≤ x0 ≤ x1
     * @param y0 box top, 0 ≤ y0 ≤ y1
     * @param x1 box right, at most {@code inWidth}
     * @param y1 box bottom, at most {@code inHeight}
     * @param width target width, at least 1
     * @param height target height, at least 1
     * @return {@code width·height} pixels (a new array)
     */
    static int[] resize(
            PillowFilter filter,
            int[] rgb,
            int inWidth,
            int inHeight,
            int x0,
            int y0,
            int x1,
            int y1,
            int width,
            int height) {
        if (width < 1 || height < 1) {
            throw new IllegalArgumentException("target size must be at least 1x1, got " + width + "x" + height);
        }
        if (rgb.length != inWidth * inHeight) {
            throw new IllegalArgumentException("expected " + inWidth + "x" + inHeight + " pixels, got " + rgb.length);
        }
        if (x0 < 0 || y0 < 0 || x1 > inWidth || y1 > inHeight || x1 < x0 || y1 < y0) {
            throw new IllegalArgumentException("box (" + x0 + ", " + y0 + ", " + x1 + ", " + y1
                    + ") must lie inside the " + inWidth + "x" + inHeight + " source and not be negative");
        }
        if (x1 - x0 == width && y1 - y0 == height) {
            // Pillow's _resize: an integer box of the target size is ImagingCrop
            return PackedRgb.crop(rgb, inWidth, x0, y0, width, height);
        }
        // ImagingResample's tests, box included
        boolean horizontal = width != inWidth || x0 != 0 || x1 != width;
        boolean vertical = height != inHeight || y0 != 0 || y1 != height;
        Coefficients vert = Coefficients.compute(filter, inHeight, y0, y1, height);
        int[] current = rgb;
        int currentWidth = inWidth;
        int rowOffset = 0;
        if (horizontal) {
            // only the source rows that some output row reads
            int first = vert.start[0];
            int last = vert.start[height - 1] + vert.count[height - 1];
            rowOffset = vertical ? first : y0;
            int rows = vertical ? last - first : height;
            current =
                    horizontalPass(rgb, inWidth, rowOffset, rows, Coefficients.compute(filter, inWidth, x0, x1, width));
            currentWidth = width;
        }
        if (vertical) {
            current = verticalPass(current, currentWidth, horizontal ? rowOffset : 0, vert);
        }
        return current == rgb ? rgb.clone() : current;
    }

    private static int[] horizontalPass(int[] src, int inWidth, int firstRow, int rows, Coefficients c) {
        int outWidth = c.outSize;
        int[] out = new int[outWidth * rows];
        for (int y = 0; y < rows; y++) {
            int srcRow = (y + firstRow) * inWidth;
            int dstRow = y * outWidth;
            for (int xx = 0; xx < outWidth; xx++) {
                int base = srcRow + c.start[xx];
                int kAt = xx * c.ksize;
                int n = c.count[xx];
                int r = 1 << (PRECISION_BITS - 1);
                int g = r;
                int b = r;
                for (int x = 0; x < n; x++) {
                    int p = src[base + x];
                    int k = c.fixed[kAt + x];
                    r += ((p >>> 16) & 0xFF) * k;
                    g += ((p >>> 8) & 0xFF) * k;
                    b += (p & 0xFF) * k;
                }
                out[dstRow + xx] = (clip8(r) << 16) | (clip8(g) << 8) | clip8(b);
            }
        }
        return out;
    }

    /** {@code src} row {@code r} holds source row {@code r + rowOffset}. */
    private static int[] verticalPass(int[] src, int width, int rowOffset, Coefficients c) {
        int outHeight = c.outSize;
        int[] out = new int[width * outHeight];
        int[] r = new int[width];
        int[] g = new int[width];
        int[] b = new int[width];
        for (int yy = 0; yy < outHeight; yy++) {
            java.util.Arrays.fill(r, 1 << (PRECISION_BITS - 1));
            java.util.Arrays.fill(g, 1 << (PRECISION_BITS - 1));
            java.util.Arrays.fill(b, 1 << (PRECISION_BITS - 1));
            int kAt = yy * c.ksize;
            int first = c.start[yy] - rowOffset;
            for (int y = 0; y < c.count[yy]; y++) {
                int k = c.fixed[kAt + y];
                int srcRow = (first + y) * width;
                // row-wise accumulation: same integer sums as Pillow's per-pixel loop, but cache friendly
                for (int xx = 0; xx < width; xx++) {
                    int p = src[srcRow + xx];
                    r[xx] += ((p >>> 16) & 0xFF) * k;
                    g[xx] += ((p >>> 8) & 0xFF) * k;
                    b[xx] += (p & 0xFF) * k;
                }
            }
            int dstRow = yy * width;
            for (int xx = 0; xx < width; xx++) {
                out[dstRow + xx] = (clip8(r[xx]) << 16) | (clip8(g[xx]) << 8) | clip8(b[xx]);
            }
        }
        return out;
    }

    private static int clip8(int acc) {
        int v = acc >> PRECISION_BITS;
        return v < 0 ? 0 : Math.min(v, 255);
    }

    /** Pillow {@code precompute_coeffs} followed by {@code normalize_coeffs_8bpc}, for the box (in0, in1). */
    private static final class Coefficients {
        final int outSize;
        final int ksize;
        final int[] start;
        final int[] count;
        final int[] fixed;

        private Coefficients(int outSize, int ksize) {
            this.outSize = outSize;
            this.ksize = ksize;
            this.start = new int[outSize];
            this.count = new int[outSize];
            this.fixed = new int[outSize * ksize];
        }

        static Coefficients compute(PillowFilter filter, int inSize, int in0, int in1, int outSize) {
            // Pillow passes the box as floats: (double) (in1 − in0) / outSize, the difference taken in float
            double scale = (double) ((float) in1 - (float) in0) / outSize;
            double filterScale = Math.max(scale, 1.0);
            double support = filter.support() * filterScale;
            int ksize = (int) Math.ceil(support) * 2 + 1;
            Coefficients c = new Coefficients(outSize, ksize);
            double[] k = new double[ksize];
            double ss = 1.0 / filterScale;
            for (int xx = 0; xx < outSize; xx++) {
                double center = (float) in0 + (xx + 0.5) * scale;
                int xmin = Math.max((int) (center - support + 0.5), 0);
                int xmax = Math.min((int) (center + support + 0.5), inSize) - xmin;
                double ww = 0.0;
                for (int x = 0; x < xmax; x++) {
                    double w = filter.weight((x + xmin - center + 0.5) * ss);
                    k[x] = w;
                    ww += w;
                }
                int at = xx * ksize;
                for (int x = 0; x < xmax; x++) {
                    double v = ww != 0.0 ? k[x] / ww : k[x];
                    c.fixed[at + x] =
                            v < 0 ? (int) (-0.5 + v * (1 << PRECISION_BITS)) : (int) (0.5 + v * (1 << PRECISION_BITS));
                }
                c.start[xx] = xmin;
                c.count[xx] = Math.max(xmax, 0);
            }
            return c;
        }
    }
}
