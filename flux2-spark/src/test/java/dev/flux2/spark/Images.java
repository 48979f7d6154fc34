package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;

/** Test helpers for image files. */
final class Images {
    private Images() {}

    /**
     * @param expected the reference image
     * @param png a PNG file
     * @param what names the comparison
     */
    static void assertSamePixels(BufferedImage expected, Path png, String what) {
        BufferedImage actual;
        try {
            actual = ImageIO.read(png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertEquals(expected.getWidth(), actual.getWidth(), what + ": width");
        assertEquals(expected.getHeight(), actual.getHeight(), what + ": height");
        int w = expected.getWidth();
        int h = expected.getHeight();
        assertArrayEquals(
                expected.getRGB(0, 0, w, h, null, 0, w), actual.getRGB(0, 0, w, h, null, 0, w), what + ": pixels");
    }

    /**
     * @param folder a folder
     * @return the names of its entries, sorted
     */
    static List<String> names(Path folder) {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param uri a {@code file:} URI from the results' path column
     * @return the local path
     */
    static Path local(String uri) {
        return Path.of(java.net.URI.create(uri));
    }
}
