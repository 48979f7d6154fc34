package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelSummary;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.PositionIds;
import dev.flux2.testkit.BundleVariant;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import dev.flux2.testkit.TensorElementType;
import dev.flux2.testkit.VaeDecoderLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text-to-image through the public API on bundles of the family that differ from the seed layout (docs/bundle-format.md
 * §3, §4, §8 to §10): other element types, other VAE decoder layouts, config options, static shapes and looser configs.
 * Each image is compared with {@link ExpectedImage}'s independent computation, whose graph math comes from the
 * testkit's reference for the same spec (it rounds exactly where that bundle's graphs do).
 *
 * <p>Tolerances: fp16 bundles use {@link ImageComparison}'s bound (≤ 1 LSB, mean ≤ 0.02 LSB, argued there). A
 * bundle that is fp32 end to end rounds only to bytes, and the graph/reference difference is fp32 summation error
 * (≤ 1e-6 measured on single graphs, see VariantStagesTest) times the ×127.5 pixel scale, so a byte can differ only
 * within ~1e-4 LSB of a rounding boundary: the mean bound is ten times tighter, {@value #FP32_MEAN_LSB} LSB.
 */
class BundleVariantsTest {
    private static final String PROMPT = "a red fox in the snow";
    private static final double FP32_MEAN_LSB = 0.002;

    @TempDir
    Path root;

    private SyntheticBundle write(String name, SyntheticBundleSpec.Builder spec) {
        return SyntheticBundleWriter.write(spec.build(), root.resolve(name));
    }

    private static GenerationResult generate(SyntheticBundle bundle, GenerationRequest request) {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            return p.generate(request);
        }
    }

    /** Generates on a pipeline built with the backend option {@code fused=off}. */
    private static GenerationResult generateFusedOff(SyntheticBundle bundle, GenerationRequest request) {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .backendOption("fused", "off")
                .build()) {
            return p.generate(request);
        }
    }

    private static GenerationRequest request(long seed, int width, int height) {
        return GenerationRequest.builder(PROMPT).seed(seed).size(width, height).build();
    }

    private static float[] expectedPerStep(SyntheticReference ref, Path tokenizer, long seed, int width, int height) {
        float[] ctx = ExpectedImage.context(ref, tokenizer, PROMPT);
        float[] x = ExpectedImage.noiseTokens(seed, height / 16, width / 16);
        ExpectedImage.denoise(ref, x, ctx, ExpectedImage.Loop.textToImage(width, height, 4));
        return ExpectedImage.decode(ref, x, height / 16, width / 16);
    }

    private static float[] expectedPerStep(SyntheticBundle bundle, long seed, int width, int height) {
        return expectedPerStep(bundle.reference(), bundle.tokenizerDirectory(), seed, width, height);
    }

    private static float[] expectedFused(SyntheticBundle bundle, long seed, int width, int height) {
        SyntheticReference ref = bundle.reference();
        int gh = height / 16;
        int gw = width / 16;
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] sigmas = FlowMatchSchedule.forImage(gh * gw, 4).sigmas();
        float[] latent =
                ref.fusedLatent(ExpectedImage.noiseTokens(seed, gh, gw), PositionIds.image(gw, gh), sigmas, ctx);
        return ExpectedImage.decode(ref, latent, gh, gw);
    }

    @Test
    void fp32BundleWithInt64IdsPerStepAndFused() {
        SyntheticBundle b = write(
                "fp32",
                SyntheticBundleSpec.builder()
                        .activationType(TensorElementType.FLOAT)
                        .idType(TensorElementType.INT64)
                        .fused(FusedConvention.ENGINE));
        GenerationResult fused = generate(b, request(42, 48, 32));
        assertTrue(fused.first().metadata().fused(), "fp32 engine-convention fused graph");
        ImageComparison.assertMatches(fused.first().image(), expectedFused(b, 42, 48, 32), "fp32 fused", FP32_MEAN_LSB);
        GenerationResult perStep = generateFusedOff(
                b, GenerationRequest.builder(PROMPT).seed(43).size(32, 48).build());
        assertFalse(perStep.first().metadata().fused());
        ImageComparison.assertMatches(
                perStep.first().image(), expectedPerStep(b, 43, 32, 48), "fp32 per step", FP32_MEAN_LSB);
    }

    @Test
    void mixedTypesConvertBetweenGraphsWithListedFusedGraph() {
        SyntheticBundle b = write(
                "mixed",
                SyntheticBundleSpec.builder()
                        .fused(FusedConvention.LISTED)
                        .vaeChunkSize(20)
                        .graphActivationType("text_encoder", TensorElementType.FLOAT)
                        .graphActivationType("transformer_fused_4step", TensorElementType.FLOAT)
                        .graphActivationType("vae_decoder_pre", TensorElementType.FLOAT)
                        .graphActivationType("vae_decoder_post_stage_0", TensorElementType.FLOAT)
                        .tokenType(TensorElementType.INT32));
        GenerationResult r = generate(b, request(7, 48, 48));
        assertTrue(r.first().metadata().fused(), "fp32 listed-convention fused graph");
        ImageComparison.assertMatches(
                r.first().image(),
                expectedFused(b, 7, 48, 48),
                "fp32 text encoder → fp32 fused → fp32 pre → fp16 attention → fp32 stage 0 → fp16");
        GenerationResult perStep = generate(
                b,
                GenerationRequest.builder(PROMPT).seed(8).size(32, 32).steps(3).build());
        assertFalse(perStep.first().metadata().fused(), "3 steps: the 4-step graph cannot run");
        float[] ctx = ExpectedImage.context(b.reference(), b.tokenizerDirectory(), PROMPT);
        float[] x = ExpectedImage.noiseTokens(8, 2, 2);
        ExpectedImage.denoise(b.reference(), x, ctx, ExpectedImage.Loop.textToImage(32, 32, 3));
        ImageComparison.assertMatches(
                perStep.first().image(),
                ExpectedImage.decode(b.reference(), x, 2, 2),
                "fp32 context into the fp16 per-step transformer");
    }

    @Test
    void unifiedDecoderWithReversedManifestsAndMinimalShards() {
        SyntheticBundle b = write(
                "unified",
                SyntheticBundleSpec.builder()
                        .unifiedVaeDecoder(true)
                        .variant(BundleVariant.REVERSED_MANIFESTS, BundleVariant.MINIMAL_INLINE_SHARDS));
        GenerationResult r = generate(b, request(3, 48, 32));
        ImageComparison.assertMatches(r.first().image(), expectedPerStep(b, 3, 48, 32), "unified decoder");
    }

    @Test
    void unifiedDecoderIsPreferredOverASplitChain() {
        // The unified graph is fp32 and the split chain fp16: the expected image follows the unified graph.
        SyntheticBundle b = write(
                "both",
                SyntheticBundleSpec.builder()
                        .vaeDecoderLayout(VaeDecoderLayout.UNIFIED_AND_SPLIT)
                        .graphActivationType("vae_decoder", TensorElementType.FLOAT));
        ModelSummary summary = Flux2Models.inspect(b.directory());
        assertEquals("unified (models.vae_decoder)", summary.details().get("vae_decoder"));
        assertTrue(
                summary.details().get("ignored_models").contains("vae_decoder_pre"),
                summary.details().toString());
        GenerationResult r = generate(b, request(4, 32, 32));
        ImageComparison.assertMatches(r.first().image(), expectedPerStep(b, 4, 32, 32), "unified beside split");
    }

    @Test
    void singlePostGraphWithReversedInputsAndNoConfigTensorNames() {
        SyntheticBundle b = write(
                "post",
                SyntheticBundleSpec.builder()
                        .singleVaePost(true)
                        .vaeChunkSize(16)
                        .variant(BundleVariant.REVERSED_STAGE_ZERO_INPUTS, BundleVariant.NO_CONFIG_TENSOR_NAMES));
        GenerationResult r = generate(b, request(5, 32, 48));
        ImageComparison.assertMatches(
                r.first().image(), expectedPerStep(b, 5, 32, 48), "single post graph, residual found by name");
    }

    @Test
    void zeroPaddedAndClippedContextFollowTheConfig() {
        SyntheticBundle b = write(
                "context", SyntheticBundleSpec.builder().zeroPaddedContext(true).contextClip(0.3f));
        GenerationResult r = generate(b, request(6, 32, 32));
        float[] expected = expectedPerStep(b, 6, 32, 32);
        ImageComparison.assertMatches(r.first().image(), expected, "zero_padded_context + context_clip");
        // Without the options the image is visibly different, so the comparison above proves they were applied.
        SyntheticReference plain =
                new SyntheticReference(SyntheticBundleSpec.builder().build());
        float[] unconditioned = expectedPerStep(plain, b.tokenizerDirectory(), 6, 32, 32);
        int changed = 0;
        for (int i = 0; i < expected.length; i++) {
            changed += Math.abs(ExpectedImage.toByte(expected[i]) - ExpectedImage.toByte(unconditioned[i])) > 1 ? 1 : 0;
        }
        assertTrue(changed > expected.length / 10, "only " + changed + " pixels depend on the context options");
    }

    @Test
    void staticShapesGenerateAtTheirSizeAndRejectOthers() {
        SyntheticBundle b = write(
                "static",
                SyntheticBundleSpec.builder()
                        .defaultSize(48, 32)
                        .vaeChunkSize(16)
                        .variant(BundleVariant.STATIC_SHAPES));
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(b.directory()).build()) {
            GenerationResult r = p.generate(request(9, 48, 32));
            ImageComparison.assertMatches(
                    r.first().image(), expectedPerStep(b, 9, 48, 32), "static graphs, fixed 16-row attention chunks");
            String msg = assertThrows(InvalidRequestException.class, () -> p.generate(request(9, 32, 32)))
                    .getMessage();
            assertTrue(
                    msg.contains("graph transformer")
                            && msg.contains("'x'")
                            && msg.contains("[1, 6, 128]")
                            && msg.contains("[1, 4, 128]"),
                    msg);
        }
    }

    @Test
    void looserGraphSignatures() {
        SyntheticBundle b = write(
                "loose",
                SyntheticBundleSpec.builder()
                        .idType(TensorElementType.INT32)
                        .variant(
                                BundleVariant.IDS_WITHOUT_BATCH,
                                BundleVariant.SCALAR_TIMESTEP,
                                BundleVariant.TEXT_POSITION_IDS));
        GenerationResult r = generate(b, request(10, 32, 32));
        ImageComparison.assertMatches(
                r.first().image(), expectedPerStep(b, 10, 32, 32), "[T, 4] int32 ids, scalar sigma, text position ids");
    }
}
