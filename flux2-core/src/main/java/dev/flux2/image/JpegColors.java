package dev.flux2.image;

import java.awt.image.BufferedImage;
import java.awt.image.Raster;
import java.util.Locale;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import org.w3c.dom.Node;

/**
 * Turns a JPEG's raw component samples (the JDK reader's {@code readRaster}: decoded and upsampled, no colour
 * conversion) into RGB exactly as the reference's loader does it: diffusers' {@code load_image} is Pillow's
 * {@code Image.open(...).convert("RGB")}, which decodes with libjpeg and never applies an embedded ICC profile.
 *
 * <ul>
 *   <li>the colour space is chosen as libjpeg's {@code default_decompress_parms} chooses it: 1 component is grey; 3
 *       are YCbCr unless an Adobe marker says transform 0 (or, without JFIF and Adobe markers, the component ids are
 *       'R', 'G', 'B'); 4 are YCCK when an Adobe marker says transform 2, CMYK otherwise;
 *   <li>YCbCr → RGB and YCCK → CMYK with libjpeg's fixed-point tables ({@code jdcolor.c}, 16 fraction bits);
 *   <li>CMYK samples are inverted (Pillow reads every CMYK JPEG as {@code CMYK;I}, the Adobe convention), then
 *       converted with Pillow's {@code cmyk2rgb}: {@code R = (255 − K) − C·(255 − K)/255} with its rounding
 *       {@code MULDIV255}, likewise G from M and B from Y;
 *   <li>embedded ICC profiles are ignored, as Pillow's {@code convert} ignores them (the JDK's own {@code read}
 *       would apply them, and gets CMYK JPEGs wrong).
 * </ul>
 *
 * Stateless and thread-safe.
 */
public final class JpegColors {
    private static final String JPEG_TREE = "javax_imageio_jpeg_image_1.0";
    private static final int SCALE_BITS = 16;
    private static final int ONE_HALF = 1 << (SCALE_BITS - 1);
    private static final int[] CR_R = new int[256];
    private static final int[] CB_B = new int[256];
    private static final int[] CR_G = new int[256];
    private static final int[] CB_G = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int x = i - 128;
            CR_R[i] = (fix(1.40200) * x + ONE_HALF) >> SCALE_BITS;
            CB_B[i] = (fix(1.77200) * x + ONE_HALF) >> SCALE_BITS;
            CR_G[i] = -fix(0.71414) * x;
            CB_G[i] = -fix(0.34414) * x + ONE_HALF;
        }
    }

    private JpegColors() {}

    /** How a JPEG's components are to be read. */
    public enum Layout {
        /** One grey component. */
        GREY,
        /** Y, Cb, Cr. */
        YCBCR,
        /** R, G, B stored as such. */
        RGB,
        /** C, M, Y, K (stored inverted, Adobe convention). */
        CMYK,
        /** Y, Cb, Cr, K (Adobe transform 2). */
        YCCK
    }

    /**
     * @param bands the number of components
     * @param metadata the reader's image metadata (may be null)
     * @return the layout libjpeg would assume
     * @throws IllegalArgumentException for a component count a JPEG cannot have here (2, or more than 4)
     */
    public static Layout layout(int bands, IIOMetadata metadata) {
        Node root = tree(metadata);
        int adobeTransform = -1;
        boolean jfif = false;
        StringBuilder ids = new StringBuilder();
        if (root != null) {
            IIOMetadataNode r = (IIOMetadataNode) root;
            jfif = r.getElementsByTagName("app0JFIF").getLength() > 0;
            if (r.getElementsByTagName("app14Adobe").getLength() > 0) {
                adobeTransform =
                        intAttribute(r.getElementsByTagName("app14Adobe").item(0), "transform", -1);
            }
            for (int i = 0; i < r.getElementsByTagName("componentSpec").getLength(); i++) {
                ids.append((char)
                        intAttribute(r.getElementsByTagName("componentSpec").item(i), "componentId", 0));
            }
        }
        return switch (bands) {
            case 1 -> Layout.GREY;
            case 3 -> {
                if (jfif) {
                    yield Layout.YCBCR;
                }
                if (adobeTransform >= 0) {
                    yield adobeTransform == 0 ? Layout.RGB : Layout.YCBCR;
                }
                yield ids.toString().equals("RGB") ? Layout.RGB : Layout.YCBCR;
            }
            case 4 -> adobeTransform == 2 ? Layout.YCCK : Layout.CMYK;
            default ->
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT, "a JPEG with %d colour components is not supported (1, 3 or 4 are)", bands));
        };
    }

    /**
     * @param raster the raw samples (8 bits per component)
     * @param layout what the components are
     * @return a {@code TYPE_INT_RGB} image with Pillow's RGB values
     */
    public static BufferedImage toRgb(Raster raster, Layout layout) {
        int w = raster.getWidth();
        int h = raster.getHeight();
        int bands = raster.getNumBands();
        int[] row = new int[w * bands];
        int[] out = new int[w * h];
        int x0 = raster.getMinX();
        int y0 = raster.getMinY();
        for (int y = 0; y < h; y++) {
            raster.getPixels(x0, y0 + y, w, 1, row);
            for (int x = 0; x < w; x++) {
                int p = x * bands;
                out[y * w + x] = switch (layout) {
                    case GREY -> rgb(row[p], row[p], row[p]);
                    case RGB -> rgb(row[p], row[p + 1], row[p + 2]);
                    case YCBCR -> ycc(row[p], row[p + 1], row[p + 2]);
                    case CMYK -> cmyk(255 - row[p], 255 - row[p + 1], 255 - row[p + 2], 255 - row[p + 3]);
                    case YCCK -> ycck(row[p], row[p + 1], row[p + 2], row[p + 3]);
                };
            }
        }
        return PackedRgb.toImage(out, w, h);
    }

    /**
     * Pillow's {@code cmyk2rgb} on one pixel of (not inverted) CMYK.
     *
     * @param c cyan 0–255
     * @param m magenta 0–255
     * @param y yellow 0–255
     * @param k black 0–255
     * @return packed 0xRRGGBB
     */
    public static int cmyk(int c, int m, int y, int k) {
        int nk = 255 - k;
        return rgb(nk - mulDiv255(c, nk), nk - mulDiv255(m, nk), nk - mulDiv255(y, nk));
    }

    private static int ycc(int y, int cb, int cr) {
        return rgb(y + CR_R[cr], y + ((CB_G[cb] + CR_G[cr]) >> SCALE_BITS), y + CB_B[cb]);
    }

    /** libjpeg's {@code ycck_cmyk_convert} (which yields Adobe-inverted CMYK), then inverted and converted. */
    private static int ycck(int y, int cb, int cr, int k) {
        int c = clamp(255 - (y + CR_R[cr]));
        int m = clamp(255 - (y + ((CB_G[cb] + CR_G[cr]) >> SCALE_BITS)));
        int ye = clamp(255 - (y + CB_B[cb]));
        return cmyk(255 - c, 255 - m, 255 - ye, 255 - k);
    }

    private static int mulDiv255(int a, int b) {
        int tmp = a * b + 128;
        return ((tmp >> 8) + tmp) >> 8;
    }

    private static int rgb(int r, int g, int b) {
        return (clamp(r) << 16) | (clamp(g) << 8) | clamp(b);
    }

    private static int clamp(int v) {
        return v < 0 ? 0 : Math.min(v, 255);
    }

    private static int fix(double x) {
        return (int) (x * (1L << SCALE_BITS) + 0.5);
    }

    private static Node tree(IIOMetadata metadata) {
        if (metadata == null) {
            return null;
        }
        for (String name : metadata.getMetadataFormatNames()) {
            if (JPEG_TREE.equals(name)) {
                return metadata.getAsTree(JPEG_TREE);
            }
        }
        return null;
    }

    private static int intAttribute(Node node, String name, int fallback) {
        Node a = node.getAttributes() == null ? null : node.getAttributes().getNamedItem(name);
        if (a == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(a.getNodeValue());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
