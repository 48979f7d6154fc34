package dev.flux2.cli;

import dev.flux2.api.GeneratedImage;
import dev.flux2.io.PngFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * Writes a generated image as a baseline JPEG (RGB, no alpha: the images are opaque) at a given quality, with the
 * generation parameters (the JSON of the PNG's {@code parameters} chunk) in a COM segment. Stateless and
 * thread-safe.
 */
final class JpegMetadataWriter {
    private static final String FORMAT = "javax_imageio_jpeg_image_1.0";

    private JpegMetadataWriter() {}

    /**
     * @param image the image and its metadata
     * @param quality 0–1 (ImageIO's scale; 0.95 by default in the CLI)
     * @param out the destination (left open)
     * @throws IOException when the stream fails
     */
    public static void write(GeneratedImage image, float quality, OutputStream out) throws IOException {
        BufferedImage rgb = toRgb(image.image());
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        try {
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality);
            IIOMetadata metadata =
                    writer.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(rgb), param);
            IIOMetadataNode root = (IIOMetadataNode) metadata.getAsTree(FORMAT);
            IIOMetadataNode com = new IIOMetadataNode("com");
            com.setAttribute("comment", PngFiles.textEntries(image.metadata()).get("parameters"));
            root.getElementsByTagName("markerSequence").item(0).appendChild(com);
            metadata.setFromTree(FORMAT, root);
            try (ImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
                writer.setOutput(stream);
                writer.write(null, new IIOImage(rgb, null, metadata), param);
            }
        } finally {
            writer.dispose();
        }
    }

    private static BufferedImage toRgb(BufferedImage image) {
        if (image.getType() == BufferedImage.TYPE_INT_RGB) {
            return image;
        }
        BufferedImage rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
        rgb.getGraphics().drawImage(image, 0, 0, null);
        return rgb;
    }
}
