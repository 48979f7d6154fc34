package dev.flux2.cli.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.flux2.cli.CliHarness;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure class "errors that come too late or say too little" (and "no resource limits" on the command line): an
 * unusable output path, an unsupported extension or a request beyond the limits is a usage error (exit 2) naming the
 * path or limit and the reason, reported before the model is resolved or loaded — the tests pass a model that does
 * not exist, which would be exit 3 if anything reached it. The output format follows the extension.
 */
class LateErrorsTest {
    private static final String NO_MODEL = "/nonexistent/flux2-model";

    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static CliHarness.Run generate(String model, String... extra) {
        String[] base = {"generate", "--model", model, "--prompt", "x", "--seed", "1", "--no-progress"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliHarness.run(args);
    }

    /** Issue #33: an all-black mask was refused only after the model loaded. */
    @Test
    void anAllBlackMaskIsAUsageErrorBeforeTheModelLoads() throws IOException {
        Path init = work.resolve("init-for-black-mask.png");
        Path mask = work.resolve("black-mask.png");
        javax.imageio.ImageIO.write(
                new java.awt.image.BufferedImage(64, 64, java.awt.image.BufferedImage.TYPE_INT_RGB),
                "png",
                mask.toFile());
        java.awt.image.BufferedImage grey =
                new java.awt.image.BufferedImage(64, 64, java.awt.image.BufferedImage.TYPE_INT_RGB);
        grey.setRGB(3, 3, 0x808080);
        javax.imageio.ImageIO.write(grey, "png", init.toFile());

        CliHarness.Run r = generate(NO_MODEL, "--init-image", init.toString(), "--mask", mask.toString());

        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.err().contains("the mask of 64x64 is all black"), r.err());
    }

    @Test
    void anOutputThatIsADirectoryIsAUsageErrorBeforeTheModelLoads() throws IOException {
        Path dir = Files.createDirectories(work.resolve("out.png"));
        CliHarness.Run r = generate(NO_MODEL, "--output", dir.toString());
        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.err().contains(dir.toString()) && r.err().contains("is a directory"), r.err());
        assertFalse(r.out().contains("seed:"), "refused before the seed line: " + r.out());
    }

    @Test
    void anOutputOnAPseudoFileSystemIsRefused() throws IOException {
        Path proc = Path.of("/proc");
        assumeTrue(Files.isDirectory(proc));
        FileStore store = Files.getFileStore(proc);
        assumeTrue(store.type().equals("proc"));
        CliHarness.Run r = generate(NO_MODEL, "--output", "/proc/flux2-image.png");
        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.err().contains("/proc/flux2-image.png") && r.err().contains("pseudo file system"), r.err());
    }

    @Test
    void anUnwritableFolderIsRefusedNamingTheReason() throws IOException {
        assumeTrue(!"root".equals(System.getProperty("user.name")), "root writes anywhere");
        Path dir = Files.createDirectories(work.resolve("readonly"));
        assumeTrue(dir.toFile().setWritable(false, false));
        try {
            CliHarness.Run r =
                    generate(NO_MODEL, "--output", dir.resolve("x.png").toString());
            assertEquals(2, r.exitCode(), r.toString());
            assertTrue(r.err().contains("permission denied"), r.err());
        } finally {
            dir.toFile().setWritable(true, false);
        }
    }

    @Test
    void theExtensionSelectsTheFormatAndUnsupportedOnesAreRefused() throws IOException {
        CliHarness.Run webp =
                generate(NO_MODEL, "--output", work.resolve("x.webp").toString());
        assertEquals(2, webp.exitCode(), webp.toString());
        assertTrue(webp.err().contains("WebP"), webp.err());
        CliHarness.Run txt =
                generate(NO_MODEL, "--output", work.resolve("x.txt").toString());
        assertEquals(2, txt.exitCode(), txt.toString());
        assertTrue(txt.err().contains(".txt"), txt.err());

        Path jpg = work.resolve("fox.jpg");
        CliHarness.Run r = generate(bundle.directory().toString(), "--output", jpg.toString(), "-W", "64", "-H", "48");
        assertEquals(0, r.exitCode(), r.toString());
        byte[] head = Files.readAllBytes(jpg);
        assertEquals(0xFF, head[0] & 0xFF, "JPEG magic, not PNG bytes");
        assertEquals(0xD8, head[1] & 0xFF);
        BufferedImage image = ImageIO.read(jpg.toFile());
        assertEquals(64, image.getWidth());
        assertEquals(48, image.getHeight());
    }

    @Test
    void requestsBeyondTheLimitsAreUsageErrorsBeforeTheModelLoads() throws IOException {
        CliHarness.Run size = generate(
                NO_MODEL,
                "-W",
                "16384",
                "-H",
                "16384",
                "--output",
                work.resolve("a.png").toString());
        assertEquals(2, size.exitCode(), size.toString());
        assertTrue(size.err().contains("maxSide") && size.err().contains("16384"), size.err());

        CliHarness.Run steps = generate(
                NO_MODEL,
                "--steps",
                "100000000",
                "--output",
                work.resolve("b.png").toString());
        assertEquals(2, steps.exitCode(), steps.toString());
        assertTrue(steps.err().contains("maxSteps") && steps.err().contains("100000000"), steps.err());

        CliHarness.Run pixels = generate(
                NO_MODEL,
                "-W",
                "1024",
                "-H",
                "1024",
                "--max-pixels",
                "65536",
                "--output",
                work.resolve("c.png").toString());
        assertEquals(2, pixels.exitCode(), pixels.toString());
        assertTrue(pixels.err().contains("maxPixels = 65536"), pixels.err());

        CliHarness.Run threads = generate(
                NO_MODEL,
                "--threads",
                "100000",
                "--output",
                work.resolve("t.png").toString());
        assertEquals(2, threads.exitCode(), threads.toString());
        assertTrue(threads.err().contains("--threads must be in 0..1024"), threads.err());

        Path huge = work.resolve("huge.png");
        writePngHeader(huge, 20_000, 20_000);
        CliHarness.Run init = generate(
                NO_MODEL,
                "--init-image",
                huge.toString(),
                "--output",
                work.resolve("d.png").toString());
        assertEquals(2, init.exitCode(), init.toString());
        assertTrue(init.err().contains(huge.toString()) && init.err().contains("maxInputSide"), init.err());
    }

    @Test
    void anInitImageThatCannotInfluenceTheResultIsReportedOnStderr() {
        Path in = work.resolve("init-source.png");
        CliHarness.Run first =
                generate(bundle.directory().toString(), "--output", in.toString(), "-W", "64", "-H", "64");
        assertEquals(0, first.exitCode(), first.toString());
        CliHarness.Run r = generate(
                bundle.directory().toString(),
                "--init-image",
                in.toString(),
                "--strength",
                "0.9",
                "--output",
                work.resolve("ignored.png").toString());
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.err().contains("flux2: warning: the init image cannot influence the result"), r.err());
        CliHarness.Run useful = generate(
                bundle.directory().toString(),
                "--init-image",
                in.toString(),
                "--output",
                work.resolve("useful.png").toString());
        assertEquals(0, useful.exitCode(), useful.toString());
        assertFalse(useful.err().contains("warning"), useful.err());
    }

    /** Signature, IHDR (8-bit RGB) and IEND: a header promising pixels the file does not hold. */
    static void writePngHeader(Path file, int width, int height) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        out.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
        java.io.ByteArrayOutputStream ihdr = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream d = new java.io.DataOutputStream(ihdr);
        d.writeInt(width);
        d.writeInt(height);
        d.write(new byte[] {8, 2, 0, 0, 0});
        chunk(out, "IHDR", ihdr.toByteArray());
        chunk(out, "IEND", new byte[0]);
        Files.write(file, bytes.toByteArray());
    }

    private static void chunk(java.io.DataOutputStream out, String type, byte[] data) throws IOException {
        byte[] t = type.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        out.writeInt(data.length);
        out.write(t);
        out.write(data);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(t);
        crc.update(data);
        out.writeInt((int) crc.getValue());
    }
}
