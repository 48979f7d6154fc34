package dev.flux2.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.ImageFiles;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidImageException;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failure class "images decoded wrongly": CMYK and YCCK JPEGs, an embedded non-sRGB ICC profile and an EXIF
 * orientation give the pixels the reference's loader gives (Pillow 9.4's {@code exif_transpose(...).convert("RGB")},
 * stored beside each fixture as {@code .pil.png}; see the fixtures' README), within one level for the JPEG decoders'
 * rounding; what cannot be read is refused naming the file and the reason.
 */
class ImageDecodingTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"cmyk", "ycck", "rgb_linear_icc", "exif6"})
    void jpegsDecodeAsPillowDecodesThem(String name) throws IOException {
        Path jpeg = copy(name + ".jpg");
        BufferedImage expected;
        try (InputStream in = getClass().getResourceAsStream("images/" + name + ".pil.png")) {
            expected = ImageIO.read(in);
        }
        BufferedImage actual = GenerationRequest.builder("x")
                .initImage(ImageFiles.read(jpeg, "init image"))
                .build()
                .initImage()
                .orElseThrow();
        assertEquals(expected.getWidth(), actual.getWidth(), name);
        assertEquals(expected.getHeight(), actual.getHeight(), name);
        int worst = 0;
        for (int y = 0; y < expected.getHeight(); y++) {
            for (int x = 0; x < expected.getWidth(); x++) {
                int e = expected.getRGB(x, y);
                int a = actual.getRGB(x, y);
                for (int shift = 0; shift <= 16; shift += 8) {
                    worst = Math.max(worst, Math.abs(((e >> shift) & 0xff) - ((a >> shift) & 0xff)));
                }
            }
        }
        assertTrue(worst <= 1, name + ": largest channel difference from Pillow " + worst);
    }

    @Test
    void theJdksOwnReaderWouldHaveGottenCmykWrong() throws IOException {
        // The regression this class guards: ImageIO.read gives (193, 219, 241) where Pillow gives (137, 181, 225).
        BufferedImage jdk = ImageIO.read(copy("cmyk.jpg").toFile());
        BufferedImage ours = GenerationRequest.builder("x")
                .initImage(ImageFiles.read(copy("cmyk.jpg"), "init image"))
                .build()
                .initImage()
                .orElseThrow();
        assertEquals(0x89b5e1, ours.getRGB(0, 0) & 0xffffff);
        assertTrue((jdk.getRGB(0, 0) & 0xffffff) != 0x89b5e1);
    }

    @Test
    void anUnreadableFormatIsRefusedNamingTheFile() throws IOException {
        Path webp = dir.resolve("image.webp");
        Files.write(webp, new byte[] {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P'});
        InvalidImageException e = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .addReferenceImage(ImageFiles.read(webp, "reference image 0"))
                        .build());
        assertTrue(e.getMessage().contains(webp.toString()) && e.getMessage().contains("format"), e.getMessage());
    }

    private Path copy(String resource) throws IOException {
        Path file = dir.resolve(resource);
        try (InputStream in = getClass().getResourceAsStream("images/" + resource)) {
            Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }
}
