package dev.flux2.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.ImageFiles;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelFiles;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #24's input classes that reach the request builder: text too long for the native tokenizer, truncated image
 * files, PNG metadata bombs, tiny init images and strengths that leave no step (refused in {@code build()}, before
 * any model exists), overflowing sizes, and files that are not regular files.
 */
class HostileInputTest {
    @TempDir
    Path dir;

    @Test
    void promptsBeyondTheLimitAreRefusedInBuildNamingTheLimit() {
        String longest = " ".repeat(GenerationLimits.MAX_PROMPT_CHARS);
        assertEquals(longest, GenerationRequest.builder(longest).build().prompt());
        String tooLong = longest + "x";
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(tooLong).build());
        assertTrue(e.getMessage().contains("MAX_PROMPT_CHARS") && e.getMessage().contains("65537"), e.getMessage());
        InvalidRequestException negative = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder("x").negativePrompt(tooLong).build());
        assertTrue(negative.getMessage().startsWith("negativePrompt"), negative.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"png", "jpg", "gif", "bmp"})
    void truncatedImagesAreRefusedInEveryFormat(String format) throws IOException {
        byte[] whole = encode(noise(64, 64), format);
        Path complete = dir.resolve("complete." + format);
        Files.write(complete, whole);
        assertEquals(
                64,
                GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(complete, "init image"))
                        .build()
                        .initImage()
                        .orElseThrow()
                        .getWidth());
        Path truncated = dir.resolve("truncated." + format);
        Files.write(truncated, Arrays.copyOf(whole, whole.length * 6 / 10));
        InvalidImageException e = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(truncated, "init image"))
                        .build());
        assertTrue(e.getMessage().contains(truncated.toString()), e.getMessage());
    }

    @Test
    void aTruncatedJpegNamesTheTruncationNotHalfAGreyImage() throws IOException {
        byte[] whole = encode(noise(64, 64), "jpg");
        Path truncated = dir.resolve("cut.jpg");
        Files.write(truncated, Arrays.copyOf(whole, whole.length / 2));
        InvalidImageException e = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(truncated, "init image"))
                        .build());
        assertTrue(e.getMessage().contains("truncated or corrupt"), e.getMessage());
    }

    @Test
    void pngTextChunksAreNotInflated() throws IOException {
        // 256 MiB of zeros deflate to about 250 KB: inflated, they would take the test heap.
        BufferedImage image = noise(32, 32);
        byte[] png = encode(image, "png");
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(compressed, new Deflater(9))) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 256; i++) {
                z.write(zeros);
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write("Comment".getBytes(StandardCharsets.ISO_8859_1));
        body.write(0); // keyword terminator
        body.write(0); // compression method: deflate
        body.write(compressed.toByteArray());
        Path bomb = dir.resolve("bomb.png");
        Files.write(bomb, insertAfterHeader(png, chunk("zTXt", body.toByteArray())));
        BufferedImage read = GenerationRequest.builder("x")
                .initImage(ImageFiles.read(bomb, "init image"))
                .build()
                .initImage()
                .orElseThrow();
        assertEquals(image.getRGB(5, 7), read.getRGB(5, 7));
    }

    @Test
    void tinyInitImagesAndVanishingStrengthsAreRefusedBeforeAnyModel() {
        InvalidImageException tiny = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x").initImage(noise(8, 8)).build());
        assertTrue(
                tiny.getMessage().contains("at least 16x16")
                        && tiny.getMessage().contains("8x8"),
                tiny.getMessage());
        InvalidImageException thin = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(noise(70_000, 16))
                        .build());
        assertTrue(thin.getMessage().contains("area cap"), thin.getMessage());
        InvalidRequestException strength = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(noise(32, 32))
                        .strength(1e-17)
                        .build());
        assertTrue(strength.getMessage().contains("MIN_STRENGTH"), strength.getMessage());
        // The smallest accepted strength still leaves a step for one step and for many.
        GenerationRequest.builder("x")
                .initImage(noise(32, 32))
                .strength(GenerationRequest.MIN_STRENGTH)
                .steps(1)
                .build();
        GenerationRequest.builder("x")
                .initImage(noise(32, 32))
                .strength(GenerationRequest.MIN_STRENGTH)
                .steps(1000)
                .build();
    }

    @Test
    void theLargestWidthIsNotOverflowedAndNamesMaxSide() {
        InvalidRequestException unlimited = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder("x").width(Integer.MAX_VALUE).build());
        // The largest multiple of 16 an int holds, not the overflowed 16 of before.
        assertTrue(unlimited.getMessage().contains("nearest valid width: 2147483632"), unlimited.getMessage());
        InvalidRequestException limited = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder("x")
                        .limits(GenerationLimits.builder().maxSide(2048).build())
                        .width(Integer.MAX_VALUE)
                        .build());
        assertTrue(
                limited.getMessage().contains("maxSide = 2048")
                        && limited.getMessage().contains("2147483647"),
                limited.getMessage());
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void aFolderAFifoAndADeviceLinkAreNotReportedAsMissing() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("config.json"));
        Path fifo = dir.resolve("fifo.json");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        Path zero = Files.createSymbolicLink(dir.resolve("zero.json"), Path.of("/dev/zero"));
        assertTrue(ModelFiles.notRegular(folder).orElseThrow().contains("but a folder"));
        for (Path special : new Path[] {fifo, zero}) {
            // Never opened: a FIFO would block until a writer comes, /dev/zero never ends.
            ModelLoadException e = assertThrows(
                    ModelLoadException.class, () -> ModelFiles.readBounded(special, "bundle config", 1 << 20));
            assertTrue(e.getMessage().contains("FIFO, socket or device"), e.getMessage());
        }
        assertTrue(ModelFiles.notRegular(zero).orElseThrow().contains("/dev/zero"));
        assertEquals(
                "does not exist", ModelFiles.notRegular(dir.resolve("absent")).orElseThrow());
        InvalidImageException image = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(fifo, "init image"))
                        .build());
        assertTrue(image.getMessage().contains("FIFO"), image.getMessage());
    }

    @Test
    void aFileOverItsLimitIsRefusedNamingTheLimit() throws IOException {
        Path big = dir.resolve("big.json");
        Files.write(big, new byte[4096]);
        ModelLoadException e =
                assertThrows(ModelLoadException.class, () -> ModelFiles.readBounded(big, "bundle config", 1024));
        assertTrue(e.getMessage().contains("4096 bytes") && e.getMessage().contains("limit of 1024"), e.getMessage());
    }

    @Test
    void ioFailuresKeepTheirReason() {
        // Their messages are only the path; the reason is what a person needs (the tests run as root, so a real
        // permission failure cannot be provoked here).
        assertEquals("permission denied", ModelFiles.reason(new java.nio.file.AccessDeniedException("/m/te.onnx")));
        assertEquals(
                "no space left on device",
                ModelFiles.reason(new java.nio.file.FileSystemException("/m/x", null, "No space left on device")));
        assertTrue(ModelFiles.reason(new IOException("write failed: No space left on device"))
                .startsWith("no space left on device"));
    }

    private static BufferedImage noise(int width, int height) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Random random = new Random(7);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                image.setRGB(x, y, random.nextInt() & 0xFFFFFF);
            }
        }
        return image;
    }

    private static byte[] encode(BufferedImage image, String format) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(ImageIO.write(image, format, out), format);
        return out.toByteArray();
    }

    private static byte[] chunk(String type, byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(out);
        byte[] typeBytes = type.getBytes(StandardCharsets.US_ASCII);
        d.writeInt(data.length);
        d.write(typeBytes);
        d.write(data);
        CRC32 crc = new CRC32();
        crc.update(typeBytes);
        crc.update(data);
        d.writeInt((int) crc.getValue());
        return out.toByteArray();
    }

    /** The signature (8 bytes) and IHDR (25 bytes) come first; an ancillary chunk may follow them. */
    private static byte[] insertAfterHeader(byte[] png, byte[] chunk) {
        byte[] out = new byte[png.length + chunk.length];
        System.arraycopy(png, 0, out, 0, 33);
        System.arraycopy(chunk, 0, out, 33, chunk.length);
        System.arraycopy(png, 33, out, 33 + chunk.length, png.length - 33);
        return out;
    }
}
