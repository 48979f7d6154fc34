package dev.flux2.spark;

import dev.flux2.ImageFiles;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Reads init and reference images through Hadoop's {@code FileSystem}, so any path or URI it knows works, and
 * decodes them with the CLI's and the server's code ({@link ImageFiles#read}): the same formats, orientation,
 * colour handling, size limits and refusals (a truncated JPEG, whose missing rows ImageIO fills grey with only a
 * warning, fails its row as {@code flux2 generate} refuses it).
 */
final class HadoopImages {
    private HadoopImages() {}

    /**
     * @param location a path or URI (a relative path resolves against the default file system's working folder)
     * @param column the column it came from, for messages
     * @param conf the Hadoop configuration
     * @return the decoded image, as {@code flux2 generate} decodes the same file
     * @throws InvalidImageException when it does not exist, cannot be read, is not an image or is truncated,
     *     naming the column and the location
     */
    static BufferedImage read(String location, String column, Configuration conf) {
        Path path;
        try {
            path = new Path(location);
        } catch (IllegalArgumentException e) {
            throw new InvalidImageException(
                    column + " " + Values.quote(location) + " is not a valid path or URI: " + Values.oneLine(e));
        }
        java.nio.file.Path staged = null;
        try {
            // Staged as a local file: ImageFiles reads a path (its header before the pixels, within the limits).
            staged = Files.createTempFile("flux2-spark-image-", ".img");
            try (InputStream in = path.getFileSystem(conf).open(path)) {
                Files.copy(in, staged, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            return ImageFiles.read(staged, column);
        } catch (InvalidRequestException e) {
            // Named by the row's location, not the staging file.
            throw new InvalidImageException(e.getMessage().replace(staged.toString(), location), e);
        } catch (FileNotFoundException e) {
            throw new InvalidImageException(column + " " + location + " does not exist or is not a file");
        } catch (IOException e) {
            throw new InvalidImageException(column + " " + location + " cannot be read: " + Values.oneLine(e), e);
        } finally {
            if (staged != null) {
                try {
                    Files.deleteIfExists(staged);
                } catch (IOException ignored) {
                    // a temporary file in the JVM's temporary folder; nothing more to do
                }
            }
        }
    }
}
