package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.testkit.QuantSpec;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.TensorElementType;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Models composed of parts of different exports ({@link Flux2Pipeline.Builder#component}), end to end against the
 * independent reference: each part's math comes from the synthetic bundle it was taken from.
 */
class CompositionTest {
    private static final String PROMPT = "a lighthouse at dusk";

    @TempDir
    static Path root;

    /** MarkShark2 layout: fp16, 4-bit block 16, split VAE decoder, VAE encoder. */
    private static SyntheticBundle markshark;
    /** hlhc layout: fp32, int64 ids, 8-bit block 128 transformer. */
    private static SyntheticBundle hlhc;
    /** A transformer with MarkShark2's names in another precision (fp32, 8-bit block 128), as danyalmalik's. */
    private static SyntheticBundle otherPrecision;
    /** A folder holding only that transformer (graph and its shards, no config). */
    private static Path transformerOnly;

    @BeforeAll
    static void writeBundles() {
        markshark = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("markshark2"));
        hlhc = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().hlhcLayout().seed(0xC0FFEE).build(), root.resolve("hlhc"));
        otherPrecision = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .seed(0xDA17)
                        .graphActivationType("transformer", TensorElementType.FLOAT)
                        .transformerQuant(QuantSpec.Q8_BLOCK128)
                        .build(),
                root.resolve("other-precision"));
        transformerOnly = root.resolve("transformer-only");
        otherPrecision.copyGraph("transformer", transformerOnly);
    }

    @Test
    void hlhcTransformerFileBesideMarkShark2TextEncoderAndVae() {
        ExpectedGeneration expected = new ExpectedGeneration(
                markshark.reference(), hlhc.reference(), markshark.reference(), markshark.tokenizerDirectory());
        BufferedImage reference = ExpectedImage.testImage(64, 64, 2);
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(markshark.directory())
                .component(ModelRole.DENOISER, hlhc.graphFile("transformer"))
                .build()) {
            assertTrue(
                    p.modelInfo().variant().endsWith("+denoiser"), p.modelInfo().variant());
            GenerationResult t2i = p.generate(
                    GenerationRequest.builder(PROMPT).seed(3).size(64, 48).build());
            ImageComparison.assertMatches(
                    t2i.first().image(), expected.textToImage(PROMPT, 3, 64, 48), "hlhc denoiser, text-to-image");
            GenerationResult refs = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(5)
                    .size(32, 48)
                    .addReferenceImage(reference)
                    .build());
            ImageComparison.assertMatches(
                    refs.first().image(),
                    expected.withReferences(PROMPT, 5, 32, 48, reference),
                    "hlhc denoiser, one reference");
        }
    }

    @Test
    void transformerOnlyFolderWithMarkShark2TextEncoderVaeAndTokenizer() {
        ExpectedGeneration expected = new ExpectedGeneration(
                markshark.reference(),
                otherPrecision.reference(),
                markshark.reference(),
                markshark.tokenizerDirectory());
        BufferedImage init = ExpectedImage.testImage(64, 48, 8);
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(transformerOnly)
                .component(ModelRole.TEXT_ENCODER, markshark.directory())
                .component(ModelRole.VAE_DECODER, markshark.directory())
                .component(ModelRole.VAE_ENCODER, markshark.directory())
                .build()) {
            assertTrue(p.modelInfo().supportsImageInput());
            GenerationResult r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(12)
                    .initImage(init)
                    .strength(0.75)
                    .build());
            ImageComparison.assertMatches(
                    r.first().image(),
                    expected.imageToImage(PROMPT, 12, init, 0.75),
                    "transformer-only folder composed with MarkShark2 parts, img2img");
        }
    }

    @Test
    void inspectDescribesTheComposition() {
        ModelSummary s = Flux2Models.inspect(
                transformerOnly,
                Map.of(
                        ModelRole.TEXT_ENCODER, markshark.directory(),
                        ModelRole.VAE_DECODER, markshark.directory(),
                        ModelRole.TOKENIZER, markshark.tokenizerDirectory()));
        assertEquals("none", s.details().get("problems"), s.details().toString());
        String layout = s.details().get("layout");
        assertTrue(layout.startsWith("composed: markshark2 (graph signatures)"), layout);
        assertTrue(layout.contains("tokenizer, text-encoder, vae-decoder"), layout);
        String parts = s.details().get("parts");
        assertTrue(parts.contains("text-encoder: " + markshark.directory().toAbsolutePath()), parts);
        assertTrue(parts.contains("denoiser: " + transformerOnly.resolve("flux2-klein-4b-transformer-q4.onnx")), parts);
        ModelSummary.GraphEntry pre = s.graphs().stream()
                .filter(g -> g.key().equals("vae_decoder_pre"))
                .findFirst()
                .orElseThrow();
        assertTrue(Path.of(pre.file()).isAbsolute(), "a part from elsewhere is named by its absolute path");
        assertTrue(
                s.files().stream().allMatch(ModelSummary.FileEntry::ok),
                s.files().toString());
        assertEquals("false", s.details().get("supports_image_input"), "no VAE encoder was given");
    }
}
