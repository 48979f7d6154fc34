package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.cli.testing.ExpectedImage;
import dev.flux2.cli.testing.ImageComparison;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.PngText;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance: the shaded CLI jar, run as a separate process against a synthetic bundle. The generated PNG is
 * compared with an image computed independently (tokenizer + golden-tested core math + the testkit's own evaluation
 * of the synthetic graphs, see {@link ExpectedImage}).
 */
class Flux2CliIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    @Test
    void generateWritesThePngTheIndependentComputationPredicts() throws Exception {
        Path png = work.resolve("fox.png");
        CliProcess.Result r = CliProcess.run(
                work,
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                PROMPT,
                "--seed",
                "42",
                "--width",
                "64",
                "--height",
                "48",
                "--output",
                png.toString());

        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.out().contains("seed: 42"), r.out());
        assertTrue(r.out().contains("output: " + png), r.out());
        assertTrue(r.out().contains("timings: ") && r.out().contains("denoise="), r.out());
        // stderr is a file here: no progress bar is drawn into it (issue #33), unless FLUX2_PROGRESS=on (below).
        assertFalse(r.err().contains("Denoise") || r.err().contains("\r"), "bars drawn into a file: " + r.err());

        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(64, image.getWidth());
        assertEquals(48, image.getHeight());
        PngText text = PngText.read(png);
        assertEquals(PROMPT, text.tEXt().get("prompt"));
        assertEquals("42", text.tEXt().get("seed"));
        assertEquals(Integer.toString(bundle.spec().numSteps()), text.tEXt().get("steps"));
        assertEquals("64", text.tEXt().get("width"));
        assertEquals("48", text.tEXt().get("height"));
        assertEquals(bundle.spec().modelVariant(), text.tEXt().get("model_variant"));

        int[] expected = ExpectedImage.rgb(
                bundle,
                new ExpectedImage.Request(PROMPT, 42, 64, 48, bundle.spec().numSteps()));
        assertTrue(ImageComparison.channelStdDev(expected) > 10, "the expected image is not flat");
        ImageComparison diff = ImageComparison.of(image, expected);
        // The graphs compute in fp32 and round to fp16 at each output, the reference in double with the same fp16
        // roundings: a rounding decision may flip by one fp16 ulp per graph output (≤ 2^-11 relative), which the
        // 4 Euler steps and the decoder chain carry to at most ~2^-9 in [-1, 1] (testkit VaeGraphsTest), i.e.
        // ≤ 0.25 of one 8-bit level before rounding to bytes: some values may land one level off, none two.
        assertTrue(diff.maxAbs() <= 1, "max channel difference " + diff);
        assertTrue(diff.meanAbs() < 0.05, "mean channel difference " + diff);

        int[] otherSeed = ExpectedImage.rgb(
                bundle,
                new ExpectedImage.Request(PROMPT, 43, 64, 48, bundle.spec().numSteps()));
        assertTrue(ImageComparison.of(image, otherSeed).maxAbs() > 1, "the comparison distinguishes seeds");
    }

    @Test
    void withoutSeedARandomSeedIsDrawnPrintedAndStored() throws Exception {
        Path png = work.resolve("random.png");
        CliProcess.Result r = CliProcess.run(
                work,
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "x",
                "--output",
                png.toString(),
                "--num-images",
                "2",
                "--no-progress");
        assertEquals(0, r.exitCode(), r.toString());
        Matcher m = Pattern.compile("seed: (\\d+)").matcher(r.out());
        assertTrue(m.find(), r.out());
        long seed = Long.parseLong(m.group(1));
        assertEquals(
                Long.toString(seed),
                PngText.read(work.resolve("random-0.png")).tEXt().get("seed"));
        assertEquals(
                Long.toString(seed + 1),
                PngText.read(work.resolve("random-1.png")).tEXt().get("seed"));
        BufferedImage first = ImageIO.read(work.resolve("random-0.png").toFile());
        assertEquals(bundle.spec().defaultWidth(), first.getWidth(), "size from the bundle config");
        assertEquals(bundle.spec().defaultHeight(), first.getHeight());
        assertFalse(r.err().contains("Denoise"), "--no-progress draws no bars: " + r.err());
    }

    @Test
    void usageErrorsExitWith2() throws Exception {
        CliProcess.Result size = CliProcess.run(
                work, "generate", "--model", bundle.directory().toString(), "--prompt", "x", "--width", "1000");
        assertEquals(2, size.exitCode(), size.toString());
        assertTrue(size.err().contains("multiple of 16"), size.err());
        assertFalse(size.err().contains("\tat "), "no stack trace without --verbose");

        CliProcess.Result unknown = CliProcess.run(work, "generate", "--modle", "x");
        assertEquals(2, unknown.exitCode(), unknown.toString());
    }

    @Test
    void brokenBundleExitsWith3NamingTheMissingFile() throws Exception {
        Path broken = work.resolve("broken");
        copyTree(bundle.directory(), broken);
        Path shard = bundle.shardFiles("transformer").get(0);
        Files.delete(broken.resolve(shard.getFileName().toString()));

        CliProcess.Result gen = CliProcess.run(
                work,
                "generate",
                "--model",
                broken.toString(),
                "--prompt",
                "x",
                "--seed",
                "1",
                "--output",
                work.resolve("never.png").toString());
        assertEquals(3, gen.exitCode(), gen.toString());
        assertTrue(gen.err().contains(shard.getFileName().toString()), gen.err());
        assertFalse(Files.exists(work.resolve("never.png")));

        CliProcess.Result info = CliProcess.run(work, "info", "--model", broken.toString());
        assertEquals(3, info.exitCode(), info.toString());
        assertTrue(info.out().contains("MISSING"), info.out());
    }

    @Test
    void tokenizePrintsTheTokenizersIdsAtTheConfiguredLength() throws Exception {
        CliProcess.Result r =
                CliProcess.run(work, "tokenize", "--model", bundle.directory().toString(), "--prompt", PROMPT);
        assertEquals(0, r.exitCode(), r.toString());
        JsonNode json = JSON.readTree(r.out());
        int len = bundle.spec().textSequenceLength();
        assertEquals(len, json.get("input_ids").size());
        assertEquals(len, json.get("attention_mask").size());
        TokenizedPrompt expected;
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(bundle.tokenizerDirectory(), len)) {
            expected = tokenizer.tokenize(PROMPT);
        }
        for (int i = 0; i < len; i++) {
            assertEquals(expected.inputIds()[i], json.get("input_ids").get(i).asLong(), "id " + i);
            assertEquals(
                    expected.attentionMask()[i],
                    json.get("attention_mask").get(i).asLong(),
                    "mask " + i);
        }
        assertEquals(18, json.get("real_tokens").asInt(), "docs/pipeline-reference.md §3 example");
        assertEquals(0, json.get("truncated").asInt());
    }

    @Test
    void infoListsFilesGraphsAndProviders() throws Exception {
        CliProcess.Result r =
                CliProcess.run(work, "info", "--model", bundle.directory().toString());
        assertEquals(0, r.exitCode(), r.toString());
        JsonNode config = JSON.readTree(bundle.configFile().toFile());
        config.get("models")
                .fieldNames()
                .forEachRemaining(key -> assertTrue(r.out().contains(key), "graph " + key + " listed:\n" + r.out()));
        assertTrue(r.out().contains("flux2-config.json"), r.out());
        assertTrue(
                r.out()
                        .contains(bundle.shardFiles("transformer")
                                .get(0)
                                .getFileName()
                                .toString()),
                r.out());
        assertTrue(r.out().contains("Execution providers available:") && r.out().contains("CPU"), r.out());
        assertTrue(r.out().contains("Fused denoiser convention:"), r.out());
    }

    /**
     * Issue #33: FLUX2_ORT_LIBRARY naming a truncated copy of the library (a partial download) died with SIGBUS in
     * the dynamic loader (exit 134, an hs_err log), flux2 info too. Now checked before loading: exit 5, one line.
     */
    @Test
    void aTruncatedOrtLibraryIsARuntimeErrorNotACrash() throws Exception {
        Path truncated = work.resolve("truncated-libonnxruntime.so");
        try (java.io.InputStream in =
                Flux2CliIT.class.getResourceAsStream("/ai/onnxruntime/native/linux-x64/libonnxruntime.so")) {
            assumeTrue(in != null, "no linux-x64 ONNX Runtime library on this class path");
            Files.write(truncated, in.readNBytes(8 << 20)); // the first 8 MiB of about 22 MiB
        }
        java.util.Map<String, String> env = java.util.Map.of("FLUX2_ORT_LIBRARY", truncated.toString());
        for (String command : new String[] {"info", "generate"}) {
            CliProcess.Result r = command.equals("info")
                    ? CliProcess.run(
                            work, env, "info", "--model", bundle.directory().toString())
                    : CliProcess.run(
                            work,
                            env,
                            "generate",
                            "--model",
                            bundle.directory().toString(),
                            "--prompt",
                            PROMPT,
                            "--output",
                            work.resolve("never.png").toString());
            assertEquals(5, r.exitCode(), command + ": " + r);
            assertTrue(r.err().contains(truncated + " (chosen by FLUX2_ORT_LIBRARY) is truncated or corrupt"), r.err());
            assertFalse(r.out().contains("Problems: none"), r.out());
        }
        try (Stream<Path> files = Files.list(work)) {
            assertEquals(
                    List.of(),
                    files.filter(p -> p.getFileName().toString().startsWith("hs_err_pid"))
                            .toList(),
                    "a JVM crash log");
        }
    }

    @Test
    void progressBarsForcedOnAreDrawnIntoAFile() throws Exception {
        CliProcess.Result r = CliProcess.run(
                work,
                java.util.Map.of(ProgressSwitch.ENV, "on"),
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                PROMPT,
                "--seed",
                "42",
                "--width",
                "64",
                "--height",
                "48",
                "--output",
                work.resolve("forced-progress.png").toString());

        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.err().contains("Denoise"), "a progress bar per stage on stderr: " + r.err());
    }

    @Test
    void ctrlCCancelsTheRunningGenerationAndExitsWith130() throws Exception {
        assumeTrue(
                sigintDeliverable(),
                "SIGINT is ignored in this process tree (or not Linux): a JVM started here"
                        + " keeps it ignored, so Ctrl-C cannot be simulated");
        Path png = work.resolve("interrupted.png");
        Path out = work.resolve("interrupted.out");
        Path err = work.resolve("interrupted.err");
        // Large enough that denoising and decoding take a few seconds on the synthetic graphs.
        Process p = CliProcess.start(
                work,
                out,
                err,
                java.util.Map.of(ProgressSwitch.ENV, "on"), // the bars tell when denoising runs
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "x",
                "--seed",
                "1",
                "--width",
                "1024",
                "--height",
                "1024",
                "--output",
                png.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(err).contains("Denoise") && p.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(p.isAlive(), "the generation was still running when Ctrl-C came: " + Files.readString(err));
        assertEquals(
                0,
                new ProcessBuilder("kill", "-INT", Long.toString(p.pid()))
                        .start()
                        .waitFor());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI stopped after Ctrl-C");
        String stderr = Files.readString(err);
        assertEquals(130, p.exitValue(), stderr);
        assertTrue(stderr.contains("flux2: cancelled: "), stderr);
        assertFalse(Files.exists(png), "no image is written for a cancelled generation");
        assertFalse(Files.readString(out).contains("output:"), Files.readString(out));
    }

    /** Linux with SIGINT (signal 2, bit 1 of SigIgn) not ignored by this JVM, whose children inherit it. */
    private static boolean sigintDeliverable() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(
                        line.substring("SigIgn:".length()).trim(), 16);
                return (mask & 0b10) == 0;
            }
        }
        return false;
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
