package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flux2 generate --init-image IMG --mask MASK} on a synthetic bundle with a VAE encoder. */
class InpaintCommandTest {
    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static BufferedImage init() {
        BufferedImage image = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 64; x++) {
                image.setRGB(x, y, (x * 4) << 16 | (y * 5) << 8 | ((x + y) * 2));
            }
        }
        return image;
    }

    /** A 16-bit grey mask, white (65535) on the left half. */
    private static BufferedImage mask16() {
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_USHORT_GRAY);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 32; x++) {
                mask.getRaster().setSample(x, y, 0, 65535);
            }
        }
        return mask;
    }

    @Test
    void inpaintsAsTheApiDoes() throws IOException {
        Path initFile = work.resolve("init.png");
        Path maskFile = work.resolve("mask.png");
        ImageIO.write(init(), "png", initFile.toFile());
        ImageIO.write(mask16(), "png", maskFile.toFile());
        Path out = work.resolve("inpainted.png");
        CliHarness.Run run = CliHarness.run(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "a door",
                "--seed",
                "3",
                "--init-image",
                initFile.toString(),
                "--mask",
                maskFile.toString(),
                "--strength",
                "0.75",
                "--no-progress",
                "--output",
                out.toString());
        assertEquals(ExitCodes.OK, run.exitCode(), run.toString());
        BufferedImage cli = ImageIO.read(out.toFile());
        assertEquals(64, cli.getWidth());
        assertEquals(48, cli.getHeight());
        BufferedImage api;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            api = p.generate(GenerationRequest.builder("a door")
                            .seed(3)
                            .initImage(init())
                            .mask(mask16())
                            .strength(0.75)
                            .build())
                    .first()
                    .image();
        }
        assertArrayEquals(
                api.getRGB(0, 0, 64, 48, null, 0, 64), cli.getRGB(0, 0, 64, 48, null, 0, 64), "CLI and API differ");
    }

    /** An RGB mask of the init image's size: white on x in [40, 52), y in [20, 30), one grey-128 ring around it. */
    private static BufferedImage boxMask() {
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        for (int y = 19; y < 31; y++) {
            for (int x = 39; x < 53; x++) {
                boolean inner = x >= 40 && x < 52 && y >= 20 && y < 30;
                mask.setRGB(x, y, inner ? 0xFFFFFF : 0x808080);
            }
        }
        return mask;
    }

    @Test
    void maskCropPaddingKeepsTheInitImageOutsideTheMask() throws IOException {
        Path initFile = work.resolve("init-crop.png");
        Path maskFile = work.resolve("mask-crop.png");
        ImageIO.write(init(), "png", initFile.toFile());
        ImageIO.write(boxMask(), "png", maskFile.toFile());
        Path out = work.resolve("cropped.png");
        CliHarness.Run run = CliHarness.run(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "a window",
                "--seed",
                "5",
                "--init-image",
                initFile.toString(),
                "--mask",
                maskFile.toString(),
                "--mask-crop-padding",
                "6",
                "--no-progress",
                "--output",
                out.toString());
        assertEquals(ExitCodes.OK, run.exitCode(), run.toString());
        BufferedImage cli = ImageIO.read(out.toFile());
        assertEquals(64, cli.getWidth(), "the output has the init image's size");
        assertEquals(48, cli.getHeight());
        BufferedImage init = init();
        BufferedImage mask = boxMask();
        int outside = 0;
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 64; x++) {
                if ((mask.getRGB(x, y) & 0xFFFFFF) == 0) {
                    // apply_overlay pastes the init image through the inverted mask: fully opaque where it is black
                    assertEquals(init.getRGB(x, y) & 0xFFFFFF, cli.getRGB(x, y) & 0xFFFFFF, "pixel " + x + "," + y);
                    outside++;
                }
            }
        }
        assertEquals(64 * 48 - 14 * 12, outside);
        BufferedImage api;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            api = p.generate(GenerationRequest.builder("a window")
                            .seed(5)
                            .initImage(init)
                            .mask(mask)
                            .paddingMaskCrop(6)
                            .build())
                    .first()
                    .image();
        }
        assertArrayEquals(
                api.getRGB(0, 0, 64, 48, null, 0, 64), cli.getRGB(0, 0, 64, 48, null, 0, 64), "CLI and API differ");
        boolean changed = false;
        for (int y = 20; y < 30 && !changed; y++) {
            for (int x = 40; x < 52; x++) {
                changed |= (init.getRGB(x, y) & 0xFFFFFF) != (cli.getRGB(x, y) & 0xFFFFFF);
            }
        }
        assertTrue(changed, "the white region is repainted");
    }

    @Test
    void badMaskCropPaddingIsAUsageError() throws IOException {
        Path initFile = work.resolve("init-p.png");
        ImageIO.write(init(), "png", initFile.toFile());
        CliHarness.Run noMask = CliHarness.run(
                "generate",
                "--model",
                "/nonexistent/model",
                "--prompt",
                "p",
                "--init-image",
                initFile.toString(),
                "--mask-crop-padding",
                "4");
        assertEquals(ExitCodes.USAGE, noMask.exitCode(), noMask.toString());
        assertTrue(noMask.err().contains("without a mask"), noMask.err());
        Path maskFile = work.resolve("mask-p.png");
        ImageIO.write(boxMask(), "png", maskFile.toFile());
        CliHarness.Run negative = CliHarness.run(
                "generate",
                "--model",
                "/nonexistent/model",
                "--prompt",
                "p",
                "--init-image",
                initFile.toString(),
                "--mask",
                maskFile.toString(),
                "--mask-crop-padding",
                "-2");
        assertEquals(ExitCodes.USAGE, negative.exitCode(), negative.toString());
        assertTrue(negative.err().contains("paddingMaskCrop must be >= 0 pixels, got -2"), negative.err());
    }

    @Test
    void badMasksAreUsageErrors() throws IOException {
        Path maskFile = work.resolve("mask-only.png");
        ImageIO.write(mask16(), "png", maskFile.toFile());
        CliHarness.Run noInit = CliHarness.run(
                "generate", "--model", "/nonexistent/model", "--prompt", "p", "--mask", maskFile.toString());
        assertEquals(ExitCodes.USAGE, noInit.exitCode(), noInit.toString());
        assertTrue(noInit.err().contains("without an init image"), noInit.err());

        Path initFile = work.resolve("init-b.png");
        Path black = work.resolve("black.png");
        ImageIO.write(init(), "png", initFile.toFile());
        ImageIO.write(new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY), "png", black.toFile());
        CliHarness.Run allBlack = CliHarness.run(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "p",
                "--seed",
                "1",
                "--no-progress",
                "--init-image",
                initFile.toString(),
                "--mask",
                black.toString(),
                "--output",
                work.resolve("never.png").toString());
        assertEquals(ExitCodes.USAGE, allBlack.exitCode(), allBlack.toString());
        assertTrue(allBlack.err().contains("nothing to repaint"), allBlack.err());
    }
}
