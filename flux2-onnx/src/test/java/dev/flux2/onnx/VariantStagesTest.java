package dev.flux2.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.onnx.options.VaeAttentionMode;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.onnx.stage.OnnxTextEmbedding;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.BundleVariant;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import dev.flux2.testkit.TensorElementType;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each backend stage on bundles whose graphs declare other element types than the seed (docs/bundle-format.md §4: the
 * graph is authoritative), against {@link SyntheticReference}, which rounds exactly where each graph's inputs and
 * outputs do.
 *
 * <p>Tolerances: an all-fp32 bundle rounds nowhere, so backend and reference differ only by fp32 summation in the
 * graphs against double in the reference: ≈1e-7 relative to the O(1) summands, over at most a few hundred terms,
 * hence {@value #FP32_TOLERANCE} absolute, two orders of magnitude tighter than one fp16 ulp at 1 (measured: ≤ 1e-6,
 * the velocity's 128-term sums being the largest). The mixed bundle
 * converts between graphs; conversions to a wider type are exact and to fp16 round as the consuming graph's input
 * would, so its fp16 parts keep the seed's bounds (one fp16 ulp per single graph, 2^-9 for the decoder chain) and
 * its bf16 last decoder stage adds at most one bf16 rounding flip of the image, 2^-8 for values below 1 (measured:
 * no flip at all).
 */
class VariantStagesTest {
    private static final double FP32_TOLERANCE = 1e-5;
    private static final double MIXED_DECODER_TOLERANCE = 0x1p-9 + 0x1p-8;

    @TempDir
    static Path root;

    private static SyntheticBundle fp32;
    private static SyntheticBundle mixed;
    private int baseline;

    @BeforeAll
    static void writeBundles() {
        fp32 = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .activationType(TensorElementType.FLOAT)
                        .idType(TensorElementType.INT64)
                        .tokenType(TensorElementType.INT32)
                        .vaeChunkSize(20)
                        .variant(
                                BundleVariant.IDS_WITHOUT_BATCH,
                                BundleVariant.SCALAR_TIMESTEP,
                                BundleVariant.TEXT_POSITION_IDS)
                        .build(),
                root.resolve("fp32"));
        mixed = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .vaeChunkSize(20)
                        .graphActivationType("text_encoder", TensorElementType.FLOAT)
                        .graphActivationType("vae_decoder_attn_chunk", TensorElementType.FLOAT)
                        .graphActivationType("vae_decoder_post_stage_1", TensorElementType.FLOAT)
                        .graphActivationType("vae_decoder_post_stage_2", TensorElementType.DOUBLE)
                        .graphActivationType("vae_decoder_post_stage_3", TensorElementType.BFLOAT16)
                        .graphActivationType("vae_encoder", TensorElementType.FLOAT)
                        .idType(TensorElementType.DOUBLE)
                        .build(),
                root.resolve("mixed"));
    }

    private static Flux2Backend open(SyntheticBundle bundle, VaeAttentionMode mode) {
        return new OnnxBackendProvider()
                .open(new BackendConfig(
                        bundle.directory(),
                        MemoryPolicy.SEQUENTIAL,
                        Map.of("threads", "1", "vae_attention", mode.name().toLowerCase(java.util.Locale.ROOT))));
    }

    @BeforeEach
    void countSessions() {
        baseline = OpenSessionCounter.current();
    }

    @AfterEach
    void noSessionLeaked() {
        assertEquals(baseline, OpenSessionCounter.current(), "every session released");
    }

    private static double maxDiff(float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, "length");
        double max = 0;
        for (int i = 0; i < expected.length; i++) {
            max = Math.max(max, Math.abs((double) expected[i] - actual[i]));
        }
        return max;
    }

    private static double maxAbs(float[] values) {
        double max = 0;
        for (float v : values) {
            max = Math.max(max, Math.abs(v));
        }
        return max;
    }

    private static float[] contextOf(TextEmbedding text, int values) {
        float[] out = new float[values];
        ((OnnxTextEmbedding) text).context().readFloats(0, out, 0, values);
        return out;
    }

    private static float[] velocity(Flux2Backend backend, TextEmbedding text, float[] latent, float sigma) {
        DenoiserSetup setup = new DenoiserSetup(3, 2, PositionIds.image(3, 2), new float[0], PositionIds.text(64));
        float[] v = new float[latent.length];
        try (DenoiserSession session = backend.openDenoiser(setup, new TestStageContext())) {
            session.predictVelocity(new DenoiseStep(1, 4, sigma, 0.5f), latent, text, v);
        }
        return v;
    }

    @Test
    void fp32GraphsWithIntegerIdsMatchTheReferenceToFp32Precision() {
        SyntheticReference ref = fp32.reference();
        try (Flux2Backend backend = open(fp32, VaeAttentionMode.CHUNKED)) {
            TokenizedPrompt tokens = backend.tokenize("a red fox in the snow");
            float[] ctx = ref.textContext(tokens.inputIds(), tokens.attentionMask());
            try (TextEmbedding text = backend.encodeText(tokens, new TestStageContext())) {
                double d = maxDiff(ctx, contextOf(text, ctx.length));
                assertTrue(d <= FP32_TOLERANCE, "fp32 ctx (int32 ids, position ids fed): max |Δ| " + d);
                float[] latent = TorchRandom.randn(5L, 6 * 128);
                float[] expected = ref.velocity(latent, PositionIds.image(3, 2), 0.8173f, ctx);
                float[] v = velocity(backend, text, latent, 0.8173f);
                d = maxDiff(expected, v);
                assertTrue(
                        d <= FP32_TOLERANCE && maxAbs(v) > 0.5,
                        "fp32 velocity (int64 [T, 4] ids, scalar sigma): " + "max |Δ| " + d);
            }
            float[] z = TorchRandom.randn(9L, 128 * 3 * 4);
            PixelTensor pixels = backend.decodeLatent(new LatentGrid(z.clone(), 128, 4, 3), new TestStageContext());
            double d = maxDiff(ref.decodeLatent(z, 4, 3), pixels.data());
            assertTrue(d <= FP32_TOLERANCE, "fp32 decoder, 3 chunks: max |Δ| " + d);
            float[] image = new float[3 * 32 * 48];
            for (int i = 0; i < image.length; i++) {
                image[i] = (float) Math.cos(i * 0.031);
            }
            LatentGrid encoded = backend.encodeImage(new PixelTensor(image.clone(), 48, 32), new TestStageContext());
            d = maxDiff(ref.encodeImage(image, 48, 32), encoded.data());
            assertTrue(d <= FP32_TOLERANCE, "fp32 encoder: max |Δ| " + d);
        }
    }

    @Test
    void mixedTypesAreConvertedBetweenGraphs() {
        SyntheticReference ref = mixed.reference();
        try (Flux2Backend backend = open(mixed, VaeAttentionMode.AUTO)) {
            TokenizedPrompt tokens = backend.tokenize("a lighthouse at dusk");
            float[] ctx = ref.textContext(tokens.inputIds(), tokens.attentionMask());
            try (TextEmbedding text = backend.encodeText(tokens, new TestStageContext())) {
                assertTrue(maxDiff(ctx, contextOf(text, ctx.length)) <= FP32_TOLERANCE, "fp32 text encoder");
                float[] latent = TorchRandom.randn(6L, 6 * 128);
                // The fp32 context reaches the fp16 transformer rounded once, as the reference rounds it.
                float[] expected = ref.velocity(latent, PositionIds.image(3, 2), 0.6f, ctx);
                float[] v = velocity(backend, text, latent, 0.6f);
                int flips = 0;
                for (int i = 0; i < v.length; i++) {
                    double ulp = Math.scalb(1.0, Math.getExponent(Math.max(Math.abs(expected[i]), 0x1p-14f)) - 10);
                    assertTrue(Math.abs(expected[i] - v[i]) <= ulp + 0x1p-20, "velocity[" + i + "]");
                    flips += expected[i] != v[i] ? 1 : 0;
                }
                assertTrue(flips <= v.length / 100 + 1, flips + " fp16 flips is more than fp32 noise");
            }
            float[] z = TorchRandom.randn(10L, 128 * 3 * 4);
            PixelTensor pixels = backend.decodeLatent(new LatentGrid(z.clone(), 128, 4, 3), new TestStageContext());
            float[] expected = ref.decodeLatent(z, 4, 3);
            double d = maxDiff(expected, pixels.data());
            assertTrue(
                    d <= MIXED_DECODER_TOLERANCE,
                    "fp16 pre → fp32 attention → fp16 stage 0 → fp32 → double → bf16 " + "stage 3: max |Δ| " + d);
            // The reference of an all-fp16 decoder differs by more than that: the per-graph types are honoured.
            float[] allHalf = new SyntheticReference(
                            SyntheticBundleSpec.builder().vaeChunkSize(20).build())
                    .decodeLatent(z, 4, 3);
            assertTrue(maxDiff(allHalf, expected) > 0x1p-10, "the bf16 output stage must be visible in the reference");
        }
    }
}
