package dev.flux2.image;

import java.awt.image.BufferedImage;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import org.w3c.dom.NodeList;

/**
 * A JPEG's EXIF orientation (tag 0x0112 of IFD0 in the APP1 {@code Exif} segment), applied as diffusers'
 * {@code load_image} applies it ({@code PIL.ImageOps.exif_transpose}): a camera photo stored sideways comes out
 * upright. A missing or unreadable tag means orientation 1 (as stored). Stateless and thread-safe.
 */
public final class ExifOrientation {
    private static final int APP1 = 0xE1;
    private static final int ORIENTATION_TAG = 0x0112;

    private ExifOrientation() {}

    /**
     * @param metadata a JPEG reader's image metadata (may be null)
     * @return the orientation 1–8, 1 when absent or invalid
     */
    public static int of(IIOMetadata metadata) {
        if (metadata == null) {
            return 1;
        }
        try {
            IIOMetadataNode root = (IIOMetadataNode) metadata.getAsTree("javax_imageio_jpeg_image_1.0");
            NodeList unknown = root.getElementsByTagName("unknown");
            for (int i = 0; i < unknown.getLength(); i++) {
                IIOMetadataNode node = (IIOMetadataNode) unknown.item(i);
                if (Integer.parseInt(node.getAttribute("MarkerTag")) == APP1
                        && node.getUserObject() instanceof byte[] data) {
                    int o = fromExif(data);
                    if (o != 1) {
                        return o;
                    }
                }
            }
        } catch (RuntimeException e) {
            return 1;
        }
        return 1;
    }

    /** @param data an APP1 payload @return the orientation it states, 1 when none */
    static int fromExif(byte[] data) {
        if (data.length < 14 || data[0] != 'E' || data[1] != 'x' || data[2] != 'i' || data[3] != 'f') {
            return 1;
        }
        ByteBuffer tiff = ByteBuffer.wrap(data, 6, data.length - 6).slice();
        if (tiff.get(0) == 'I' && tiff.get(1) == 'I') {
            tiff.order(ByteOrder.LITTLE_ENDIAN);
        } else if (tiff.get(0) == 'M' && tiff.get(1) == 'M') {
            tiff.order(ByteOrder.BIG_ENDIAN);
        } else {
            return 1;
        }
        int ifd = tiff.getInt(4);
        if (ifd < 8 || ifd + 2 > tiff.limit()) {
            return 1;
        }
        int entries = tiff.getShort(ifd) & 0xFFFF;
        for (int e = 0; e < entries; e++) {
            int at = ifd + 2 + 12 * e;
            if (at + 12 > tiff.limit()) {
                return 1;
            }
            if ((tiff.getShort(at) & 0xFFFF) == ORIENTATION_TAG) {
                int value = tiff.getShort(at + 8) & 0xFFFF;
                return value >= 1 && value <= 8 ? value : 1;
            }
        }
        return 1;
    }

    /**
     * @param image the image as stored
     * @param orientation the EXIF orientation 1–8
     * @return the upright image (the same object for orientation 1)
     */
    public static BufferedImage apply(BufferedImage image, int orientation) {
        if (orientation <= 1 || orientation > 8) {
            return image;
        }
        int w = image.getWidth();
        int h = image.getHeight();
        int[] src = PackedRgb.read(image);
        boolean swap = orientation >= 5;
        int nw = swap ? h : w;
        int nh = swap ? w : h;
        int[] dst = new int[nw * nh];
        for (int y = 0; y < nh; y++) {
            for (int x = 0; x < nw; x++) {
                int sx;
                int sy;
                switch (orientation) {
                    case 2 -> {
                        sx = w - 1 - x;
                        sy = y;
                    }
                    case 3 -> {
                        sx = w - 1 - x;
                        sy = h - 1 - y;
                    }
                    case 4 -> {
                        sx = x;
                        sy = h - 1 - y;
                    }
                    case 5 -> {
                        sx = y;
                        sy = x;
                    }
                    case 6 -> {
                        sx = y;
                        sy = h - 1 - x;
                    }
                    case 7 -> {
                        sx = w - 1 - y;
                        sy = h - 1 - x;
                    }
                    default -> {
                        sx = w - 1 - y;
                        sy = x;
                    }
                }
                dst[y * nw + x] = src[sy * w + sx];
            }
        }
        return PackedRgb.toImage(dst, nw, nh);
    }
}
