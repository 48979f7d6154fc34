package dev.flux2.springai;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flux2.Flux2Pipeline;
import dev.flux2.cli.Flux2Cli;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.springframework.ai.image.ImageGeneration;
import picocli.CommandLine;

/**
 * One miniature synthetic bundle per test JVM (under {@code target/}), a pipeline on it that every test compares with,
 * and the image checks: pixels, base64 PNG, and {@code flux2 generate} run in-process.
 */
public final class TestModels {
    private static SyntheticBundle bundle;
    private static Flux2Pipeline direct;

    private TestModels() {}

    /** @return the bundle, written at the first call */
    public static synchronized SyntheticBundle bundle() {
        if (bundle == null) {
            try {
                Files.createDirectories(Path.of("target"));
                Path dir = Files.createTempDirectory(Path.of("target"), "bundle-");
                bundle = SyntheticBundleWriter.write(
                        SyntheticBundleSpec.builder().build(), dir.resolve("bundle"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bundle;
    }

    /** @return a pipeline on the bundle, open for the whole JVM, that the expected images come from */
    public static synchronized Flux2Pipeline direct() {
        if (direct == null) {
            direct = Flux2Pipeline.builder().model(bundle().directory()).build();
        }
        return direct;
    }

    /** @param generation a generation @return its image, from the base64 PNG */
    public static BufferedImage decode(ImageGeneration generation) {
        try {
            return ImageIO.read(new ByteArrayInputStream(
                    Base64.getDecoder().decode(generation.getOutput().getB64Json())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param expected the expected image
     * @param actual the image
     * @param what for messages
     */
    public static void assertSamePixels(BufferedImage expected, BufferedImage actual, String what) {
        assertEquals(expected.getWidth(), actual.getWidth(), what + ": width");
        assertEquals(expected.getHeight(), actual.getHeight(), what + ": height");
        int w = expected.getWidth();
        int h = expected.getHeight();
        assertArrayEquals(
                expected.getRGB(0, 0, w, h, null, 0, w), actual.getRGB(0, 0, w, h, null, 0, w), what + ": pixels");
    }

    /**
     * Runs {@code flux2 generate} in this JVM on the bundle.
     *
     * @param args the options after {@code --model} and before {@code --output}
     * @return the image it wrote
     */
    public static BufferedImage cli(String... args) {
        try {
            Path out = Files.createTempFile(bundle().directory().getParent(), "cli-", ".png");
            Files.delete(out);
            List<String> argv = new ArrayList<>(
                    List.of("generate", "--model", bundle().directory().toString(), "--no-progress"));
            argv.addAll(List.of(args));
            argv.addAll(List.of("--output", out.toString()));
            CommandLine cmd = Flux2Cli.newCommandLine();
            StringWriter err = new StringWriter();
            cmd.setOut(new PrintWriter(new StringWriter(), true));
            cmd.setErr(new PrintWriter(err, true));
            assertEquals(0, cmd.execute(argv.toArray(String[]::new)), err.toString());
            return ImageIO.read(out.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @param image an image @return its PNG bytes */
    public static byte[] png(BufferedImage image) {
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            ImageIO.write(image, "png", out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
