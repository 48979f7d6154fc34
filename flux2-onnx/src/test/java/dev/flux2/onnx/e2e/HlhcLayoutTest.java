package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelSummary;
import dev.flux2.testkit.BundleVariant;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * hlhc's export (no {@code flux2-config.json}: parts found by their graphs' signatures, its names, fp32 activations,
 * int64 ids, MatMulNBits 4-bit and 8-bit block 128, one {@code .onnx.data} per graph, one VAE decoder graph, a VAE
 * encoder) end to end through the public API, against the independent reference ({@link ImageComparison}).
 */
class HlhcLayoutTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path root;

    private static SyntheticBundle plain;
    private static SyntheticBundle withConfigJson;

    @BeforeAll
    static void writeBundles() {
        plain = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().hlhcLayout().build(), root.resolve("hlhc"));
        withConfigJson = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .hlhcLayout()
                        .variant(BundleVariant.UNKNOWN_CONFIG_JSON, BundleVariant.TOKENIZER_BESIDE_GRAPHS)
                        .build(),
                root.resolve("hlhc-config-json"));
    }

    @Test
    void defaultsAreKleinsAndSizesComeFromTheGraphs() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            ModelInfo info = p.modelInfo();
            assertTrue(info.distilled());
            assertEquals(4, info.defaultSteps());
            assertEquals(1.0, info.defaultGuidance());
            assertEquals(1024, info.defaultWidth(), "diffusers' default size without a config");
            assertEquals(1024, info.defaultHeight());
            assertEquals(
                    plain.spec().textSequenceLength(),
                    info.textSequenceLength(),
                    "the text length the graphs fix, not klein's 512");
            assertTrue(info.supportsImageInput());
            assertEquals(0, info.fusedSteps());
            assertTrue(info.variant().contains("hlhc"), info.variant());
        }
    }

    @Test
    void textToImage() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = p.generate(
                    GenerationRequest.builder(PROMPT).seed(42).size(64, 48).build());
            assertEquals(4, r.first().metadata().stepsRun());
            ImageComparison.assertMatches(
                    r.first().image(),
                    ExpectedGeneration.of(plain).textToImage(PROMPT, 42, 64, 48),
                    "hlhc text-to-image 64x48");
        }
    }

    @Test
    void imageToImage() {
        BufferedImage init = ExpectedImage.testImage(48, 64, 5);
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(9)
                    .initImage(init)
                    .strength(0.6)
                    .build());
            assertEquals(3, r.first().metadata().stepsRun());
            ImageComparison.assertMatches(
                    r.first().image(),
                    ExpectedGeneration.of(plain).imageToImage(PROMPT, 9, init, 0.6),
                    "hlhc img2img 0.6");
        }
    }

    @Test
    void referenceImages() {
        BufferedImage first = ExpectedImage.testImage(64, 64, 3);
        BufferedImage second = ExpectedImage.testImage(80, 64, 11);
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(4)
                    .size(48, 32)
                    .addReferenceImage(first)
                    .addReferenceImage(second)
                    .build());
            assertEquals(2, r.first().metadata().referenceCount());
            ImageComparison.assertMatches(
                    r.first().image(),
                    ExpectedGeneration.of(plain).withReferences(PROMPT, 4, 48, 32, first, second),
                    "hlhc two references");
        }
    }

    @Test
    void configJsonWithUnknownKeysAndTokenizerBesideTheGraphsChangeNothing() {
        assertTrue(Files.isRegularFile(withConfigJson.directory().resolve("config.json")));
        assertTrue(Files.isRegularFile(withConfigJson.directory().resolve("tokenizer.json")));
        GenerationResult a;
        GenerationResult b;
        try (Flux2Pipeline p =
                Flux2Pipeline.builder().model(withConfigJson.directory()).build()) {
            ModelInfo info = p.modelInfo();
            assertEquals(4, info.defaultSteps(), "config.json's 28 steps are not read");
            assertEquals(1024, info.defaultWidth(), "config.json's 1360x768 is not read");
            assertEquals(withConfigJson.spec().textSequenceLength(), info.textSequenceLength());
            a = p.generate(
                    GenerationRequest.builder(PROMPT).seed(7).size(32, 32).build());
        }
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            b = p.generate(
                    GenerationRequest.builder(PROMPT).seed(7).size(32, 32).build());
        }
        assertEquals(
                0, ImageComparison.maxDifference(a.first().image(), b.first().image()));
        ImageComparison.assertMatches(
                a.first().image(),
                ExpectedGeneration.of(withConfigJson).textToImage(PROMPT, 7, 32, 32),
                "hlhc with config.json");
    }

    @Test
    void inspectShowsTheLayoutAndEachRolesMapping() {
        ModelSummary s = Flux2Models.inspect(plain.directory());
        assertEquals(
                "hlhc (graph signatures)",
                s.details().get("layout"),
                s.details().toString());
        assertEquals("none", s.details().get("problems"));
        assertEquals("64", s.details().get("text_seq_len"));
        assertEquals("1024x1024", s.details().get("default_size"));
        assertEquals("tokenizer", s.details().get("tokenizer_dir"));
        List<String> files =
                s.files().stream().map(ModelSummary.FileEntry::path).toList();
        for (String f : List.of(
                "text_encoder.onnx",
                "text_encoder.onnx.data",
                "transformer.onnx",
                "transformer.onnx.data",
                "vae_decoder.onnx",
                "vae_decoder.onnx.data",
                "vae_encoder.onnx",
                "vae_encoder.onnx.data",
                "tokenizer/tokenizer.json")) {
            assertTrue(files.contains(f), f + " in " + files);
        }
        assertTrue(
                s.files().stream().allMatch(ModelSummary.FileEntry::ok),
                s.files().toString());
        ModelSummary.GraphEntry transformer = s.graphs().stream()
                .filter(g -> g.key().equals("transformer"))
                .findFirst()
                .orElseThrow();
        assertEquals("transformer.onnx", transformer.file());
        assertEquals("denoiser (hlhc)", transformer.role());
        Map<String, String> m = transformer.mapping();
        assertEquals(
                List.of("hidden_states", "img_ids", "encoder_hidden_states", "txt_ids", "timestep", "noise_pred"),
                List.copyOf(m.values()),
                m.toString());
        ModelSummary.GraphEntry text = s.graphs().stream()
                .filter(g -> g.key().equals("text_encoder"))
                .findFirst()
                .orElseThrow();
        assertEquals("text-encoder (hlhc)", text.role());
        assertEquals(
                List.of("input_ids", "attention_mask", "prompt_embeds"),
                List.copyOf(text.mapping().values()));
        assertFalse(s.graphs().stream().anyMatch(g -> g.key().equals("ignored")));
    }
}
