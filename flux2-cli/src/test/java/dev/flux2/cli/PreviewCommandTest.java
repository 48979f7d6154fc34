package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewOptions;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flux2 generate --preview-every K --preview-dir DIR} on a synthetic bundle. */
class PreviewCommandTest {
    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static CliHarness.Run generate(Path out, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "a kite",
                "--seed",
                "8",
                "--steps",
                "4",
                "--output",
                out.toString()));
        args.addAll(List.of(extra));
        return CliHarness.run(args.toArray(String[]::new));
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static int[] rgb(BufferedImage image) {
        return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
    }

    @Test
    void writesEveryStepsPreviewAndTheSameImage() throws IOException {
        Path plain = work.resolve("plain.png");
        CliHarness.Run base = generate(plain, "--no-progress");
        assertEquals(ExitCodes.OK, base.exitCode(), base.toString());

        Path dir = work.resolve("previews/new");
        Path out = work.resolve("previewed.png");
        CliHarness.Run run = generate(out, "--preview-every", "1", "--preview-dir", dir.toString());
        assertEquals(ExitCodes.OK, run.exitCode(), run.toString());
        assertEquals(List.of("step-01.png", "step-02.png", "step-03.png"), names(dir), "no temporary file is left");
        assertArrayEquals(rgb(ImageIO.read(plain.toFile())), rgb(ImageIO.read(out.toFile())), "previews changed it");

        // the files hold the API's previews
        List<Preview> api = new ArrayList<>();
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            p.generate(
                    GenerationRequest.builder("a kite").seed(8).steps(4).build(),
                    GenerationControls.none().withPreviews(PreviewOptions.linear(1), api::add));
        }
        assertEquals(3, api.size());
        for (Preview preview : api) {
            BufferedImage file = ImageIO.read(
                    dir.resolve(String.format("step-%02d.png", preview.step())).toFile());
            assertEquals(preview.image().getWidth(), file.getWidth());
            assertArrayEquals(rgb(preview.image()), rgb(file), "step " + preview.step());
        }
    }

    @Test
    void everyKthStepAndSeveralImagesAreNamedApart() throws IOException {
        Path dir = work.resolve("every2");
        CliHarness.Run run = generate(
                work.resolve("two.png"),
                "--no-progress",
                "--num-images",
                "2",
                "--preview-every",
                "2",
                "--preview-mode",
                "vae",
                "--preview-dir",
                dir.toString());
        assertEquals(ExitCodes.OK, run.exitCode(), run.toString());
        assertEquals(List.of("image-1-step-02.png", "image-2-step-02.png"), names(dir));
        BufferedImage vae = ImageIO.read(dir.resolve("image-1-step-02.png").toFile());
        BufferedImage output = ImageIO.read(Files.list(work)
                .filter(p -> p.getFileName().toString().startsWith("two"))
                .findFirst()
                .orElseThrow()
                .toFile());
        assertEquals(output.getWidth(), vae.getWidth(), "a VAE preview has the output's size");
    }

    @Test
    void theDenoiseBarShowsTheStepAndThePreview() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stream = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        try (ProgressBars bars = new ProgressBars(stream, 1)) {
            bars.onProgress(event(dev.flux2.api.ProgressEvent.Kind.STARTED, 0));
            bars.onProgress(event(dev.flux2.api.ProgressEvent.Kind.ADVANCED, 3));
            bars.previewWritten(work.resolve("p").resolve("step-03.png"));
        }
        String drawn = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(drawn.contains("3/4"), drawn);
        assertTrue(drawn.contains("step 3/4, preview step-03.png"), drawn);
    }

    private static dev.flux2.api.ProgressEvent event(dev.flux2.api.ProgressEvent.Kind kind, int completed) {
        return new dev.flux2.api.ProgressEvent(
                dev.flux2.api.Stage.DENOISE, kind, 0, completed, 4, java.time.Duration.ZERO);
    }

    @Test
    void badPreviewOptionsAreUsageErrors() throws IOException {
        Path out = work.resolve("never.png");
        Path file = Files.writeString(work.resolve("a-file"), "x");
        for (String[] args : List.of(
                new String[] {"--preview-every", "2"},
                new String[] {
                    "--preview-every", "0", "--preview-dir", work.resolve("p0").toString()
                },
                new String[] {
                    "--preview-mode",
                    "sharp",
                    "--preview-dir",
                    work.resolve("p1").toString()
                },
                new String[] {"--preview-dir", file.toString()})) {
            CliHarness.Run run = generate(out, args);
            assertEquals(ExitCodes.USAGE, run.exitCode(), String.join(" ", args) + ": " + run);
            assertTrue(run.err().contains("--preview") || run.err().contains("a-file"), run.err());
            assertTrue(Files.notExists(out));
        }
    }
}
