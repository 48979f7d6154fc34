package dev.flux2;

import dev.flux2.api.GenerationLimits;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.image.ExifOrientation;
import dev.flux2.image.JpegColors;
import dev.flux2.spi.ModelFiles;
import java.awt.image.BufferedImage;
import java.awt.image.Raster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.stream.ImageInputStream;

/**
 * Reads an image file (an init, mask or reference image) for a {@code GenerationRequest}, the way the reference's loader does (Pillow's {@code convert("RGB")} after
 * {@code exif_transpose}), within limits: the size is read from the file's header and checked against the
 * {@link GenerationLimits} and against the free Java heap before a single pixel is decoded. JPEGs are decoded to
 * their raw components and converted (CMYK, YCCK, Adobe inversion, ICC profiles ignored as Pillow ignores them),
 * with the EXIF orientation applied; other formats through their ImageIO reader.
 *
 * <pre>{@code
 * GenerationRequest request = GenerationRequest.builder("the same scene at night")
 *         .initImage(ImageFiles.read(Path.of("day.jpg"), "init image", pipeline.limits()))
 *         .build();
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class ImageFiles {
    private ImageFiles() {}

    /**
     * Reads an image within {@link GenerationLimits#defaults()}.
     *
     * @param path the file
     * @param what the image's role, for messages ({@code "init image"}, {@code "mask"}, {@code "reference image 0"})
     * @return the decoded RGB image
     * @throws InvalidImageException naming the role, the file and the reason (with the cause attached)
     */
    public static BufferedImage read(Path path, String what) {
        return read(path, what, GenerationLimits.defaults());
    }

    /**
     * Reads an image within limits: {@link GenerationLimits#maxInputSide()} and
     * {@link GenerationLimits#maxInputPixels()} (from the header, before decoding) and the free heap.
     *
     * @param path the file
     * @param what the image's role, for messages ({@code "init image"}, {@code "mask"}, {@code "reference image 0"})
     * @param limits the input-image limits (a pipeline's own: {@code pipeline.limits()})
     * @return the decoded RGB image
     * @throws InvalidImageException naming the role, the file and the reason (with the cause attached)
     */
    public static BufferedImage read(Path path, String what, GenerationLimits limits) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(limits, "limits");
        String name = what + " " + path;
        Optional<String> notRegular = ModelFiles.notRegular(path);
        if (notRegular.isPresent()) {
            // Checked before opening: a FIFO would block until a writer comes, a device might never end.
            throw new InvalidImageException(name + " " + notRegular.get());
        }
        try (ImageInputStream in = ImageIO.createImageInputStream(path.toFile())) {
            if (in == null) {
                throw new InvalidImageException(name + " cannot be opened for reading");
            }
            Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
            if (!readers.hasNext()) {
                throw new InvalidImageException(
                        name + " is not in a readable image format (expected PNG, JPEG, BMP or GIF)");
            }
            ImageReader reader = readers.next();
            try {
                String format = reader.getFormatName().toLowerCase(Locale.ROOT);
                boolean jpeg = format.equals("jpeg") || format.equals("jpg");
                // Only a JPEG's metadata is used (EXIF orientation, Adobe colour transform). Every other format is
                // read with its metadata ignored: a PNG's zTXt/iTXt chunks would otherwise be inflated in full, and
                // 1 MB of them can inflate to gigabytes before the first pixel.
                reader.setInput(in, true, !jpeg);
                List<String> warnings = new ArrayList<>();
                reader.addIIOReadWarningListener((source, warning) -> warnings.add(warning));
                int width = reader.getWidth(0);
                int height = reader.getHeight(0);
                limits.checkInputImage(name, width, height);
                limits.checkDecodeHeap(name, width, height);
                BufferedImage image = jpeg ? readJpeg(reader) : reader.read(0);
                if (image == null) {
                    throw new InvalidImageException(name + " holds no image");
                }
                if (!warnings.isEmpty()) {
                    // A truncated JPEG decodes "successfully", its missing rows grey, with only a warning.
                    throw new InvalidImageException(name + " is truncated or corrupt (" + String.join("; ", warnings)
                            + "): the decoder could not read every pixel; use a complete file");
                }
                return image;
            } finally {
                reader.dispose();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof InvalidRequestException invalid) {
                throw invalid;
            }
            throw new InvalidImageException(name + " cannot be decoded: " + describe(e), e);
        } catch (OutOfMemoryError e) {
            // The heap check above estimates; a reader that allocates more than estimated still ends here, with
            // the buffer it failed to get released.
            throw new InvalidImageException(
                    name + " cannot be decoded: out of Java heap (" + e.getMessage() + "); raise -Xmx", e);
        }
    }

    private static BufferedImage readJpeg(ImageReader reader) throws IOException {
        IIOMetadata metadata = reader.getImageMetadata(0);
        Raster raster = reader.readRaster(0, null);
        BufferedImage rgb = JpegColors.toRgb(raster, JpegColors.layout(raster.getNumBands(), metadata));
        return ExifOrientation.apply(rgb, ExifOrientation.of(metadata));
    }

    private static String describe(Throwable e) {
        StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (s.length() > 0) {
                s.append(": ");
            }
            s.append(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
            if (t.getCause() == t) {
                break;
            }
        }
        return s.toString();
    }
}
