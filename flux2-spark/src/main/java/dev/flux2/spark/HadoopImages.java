package dev.flux2.spark;

import dev.flux2.api.InvalidImageException;
import java.awt.image.BufferedImage;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import javax.imageio.ImageIO;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/** Reads init and reference images through Hadoop's {@code FileSystem}, so any path or URI it knows works. */
final class HadoopImages {
    private HadoopImages() {}

    /**
     * @param location a path or URI (a relative path resolves against the default file system's working folder)
     * @param column the column it came from, for messages
     * @param conf the Hadoop configuration
     * @return the decoded image, exactly as {@code ImageIO.read} decodes the same file (as the CLI does)
     * @throws InvalidImageException when it does not exist, cannot be read or is not an image, naming the column
     *     and the location
     */
    static BufferedImage read(String location, String column, Configuration conf) {
        Path path;
        try {
            path = new Path(location);
        } catch (IllegalArgumentException e) {
            throw new InvalidImageException(
                    column + " " + Values.quote(location) + " is not a valid path or URI: " + Values.oneLine(e));
        }
        try (InputStream in = path.getFileSystem(conf).open(path)) {
            BufferedImage image = ImageIO.read(in);
            if (image == null) {
                throw new InvalidImageException(column + " " + location
                        + " is not in a readable image format (expected PNG, JPEG, BMP or GIF)");
            }
            return image;
        } catch (FileNotFoundException e) {
            throw new InvalidImageException(column + " " + location + " does not exist or is not a file");
        } catch (IOException e) {
            throw new InvalidImageException(column + " " + location + " cannot be read: " + Values.oneLine(e), e);
        }
    }
}
