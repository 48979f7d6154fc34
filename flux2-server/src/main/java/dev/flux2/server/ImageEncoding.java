package dev.flux2.server;

import dev.flux2.api.GeneratedImage;
import dev.flux2.io.PngFiles;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * The bytes of an answer's image in the requested {@code output_format}: PNG with the generation's parameter chunks
 * ({@link PngFiles}) or JPEG at {@code output_compression}; a streamed partial image as plain PNG or JPEG. Stateless.
 */
final class ImageEncoding {
    private ImageEncoding() {}

    /**
     * @param image a generated image and its metadata
     * @param fields the request (output format and compression)
     * @return its bytes
     */
    static byte[] encode(GeneratedImage image, OpenAiImageRequest fields) {
        return fields.outputFormat().equals("jpeg")
                ? jpeg(image.image(), fields.outputCompression())
                : PngFiles.encode(image);
    }

    /**
     * @param image pixels without metadata (a partial image)
     * @param fields the request (output format and compression)
     * @return its bytes
     */
    static byte[] encode(BufferedImage image, OpenAiImageRequest fields) {
        if (fields.outputFormat().equals("jpeg")) {
            return jpeg(image, fields.outputCompression());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static byte[] jpeg(BufferedImage image, int quality) {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality / 100f);
            BufferedImage rgb = image;
            if (image.getType() != BufferedImage.TYPE_INT_RGB && image.getType() != BufferedImage.TYPE_3BYTE_BGR) {
                rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
                rgb.getGraphics().drawImage(image, 0, 0, null);
            }
            writer.write(null, new IIOImage(rgb, null, null), param);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writer.dispose();
        }
        return out.toByteArray();
    }
}
