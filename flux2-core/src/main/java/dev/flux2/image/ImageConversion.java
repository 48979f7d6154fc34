package dev.flux2.image;

import dev.flux2.spi.PixelTensor;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferInt;
import java.util.Objects;

/**
 * Converts between the VAE's planar [−1, 1] RGB floats and 8-bit images, as the diffusers image processor does.
 * Stateless and thread-safe.
 */
public final class ImageConversion {
    /** 2^23: float32 values at or above it are integers, so adding it rounds to the nearest (even) integer. */
    private static final float ROUNDING_BIAS = 8388608f;
    /** {@code 2·(v/255) − 1} in float32 for every byte value v. */
    private static final float[] BYTE_TO_UNIT = new float[256];

    static {
        for (int v = 0; v < 256; v++) {
            BYTE_TO_UNIT[v] = 2f * (v / 255f) - 1f;
        }
    }

    private ImageConversion() {}

    /**
     * Post-processing of a decoded image (docs/pipeline-reference.md §12): {@code u = clamp(x·0.5 + 0.5, 0, 1)} and
     * {@code byte = rint(u·255)} in float32, i.e. numpy's round-half-to-even. NaN becomes 0.
     *
     * @param pixels planar RGB floats, nominally in [−1, 1]; not modified
     * @return a new {@code TYPE_INT_RGB} image
     */
    public static BufferedImage toImage(PixelTensor pixels) {
        Objects.requireNonNull(pixels, "pixels");
        int w = pixels.width();
        int h = pixels.height();
        int plane = w * h;
        float[] src = pixels.data();
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        int[] dst = ((DataBufferInt) image.getRaster().getDataBuffer()).getData();
        for (int i = 0; i < plane; i++) {
            dst[i] = (toByte(src[i]) << 16) | (toByte(src[plane + i]) << 8) | toByte(src[2 * plane + i]);
        }
        return image;
    }

    /**
     * @param x a VAE output value
     * @return its 8-bit value
     */
    static int toByte(float x) {
        float u = x * 0.5f + 0.5f;
        if (!(u > 0f)) {
            return 0; // also NaN
        }
        if (u > 1f) {
            u = 1f;
        }
        // u·255 is in [0, 255]: adding and removing 2^23 rounds it to an integer half-to-even in float32, exactly
        // what Math.rint does, without the double round trip
        return (int) ((u * 255f + ROUNDING_BIAS) - ROUNDING_BIAS);
    }

    /**
     * Pre-processing of an init or reference image (docs/pipeline-reference.md §10): RGB as PIL's
     * {@code convert("RGB")} gives it (grey replicated, palette looked up, alpha dropped), {@code x/255} in float32,
     * then {@code 2x − 1}, planar.
     *
     * @param image any image; not modified
     * @return planar RGB in [−1, 1]
     */
    public static PixelTensor toPixels(BufferedImage image) {
        Objects.requireNonNull(image, "image");
        int w = image.getWidth();
        int h = image.getHeight();
        int[] rgb = PackedRgb.read(image);
        int plane = w * h;
        float[] data = new float[3 * plane];
        for (int i = 0; i < plane; i++) {
            int p = rgb[i];
            data[i] = BYTE_TO_UNIT[(p >>> 16) & 0xFF];
            data[plane + i] = BYTE_TO_UNIT[(p >>> 8) & 0xFF];
            data[2 * plane + i] = BYTE_TO_UNIT[p & 0xFF];
        }
        return new PixelTensor(data, w, h);
    }
}
