package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle variants of {@link SyntheticBundleSpec} (activation types, decoder layouts, {@link BundleVariant}s)
 * against the reference. fp16 graphs keep the tolerances of the seed layout ({@link Agreement}); fp32 graphs round
 * nowhere, so graph (fp32 sums) and reference (double sums) differ by fp32 summation error only: a few 1e-7 of the
 * O(1) summands, bounded here by {@value #FP32_TOLERANCE} absolute.
 */
class VariantGraphsTest {
    private static final double FP32_TOLERANCE = 2e-5;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private static void assertFp32Close(String what, float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs((double) expected[i] - actual[i]));
        }
        assertTrue(worst <= FP32_TOLERANCE, what + ": max difference " + worst);
        assertTrue(Agreement.maxAbs(expected) > 0.05, what + ": the expected values are nearly 0");
    }

    @Test
    void unifiedDecoderComputesTheSplitChain() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().unifiedVaeDecoder(true).build(), dir);
        assertFalse(Files.exists(bundle.graphFile("vae_decoder_pre")), "no split graphs in a unified bundle");
        int gh = 3;
        int gw = 4;
        float[] z = TestData.gaussian(new Random(11), 128 * gh * gw);
        float[] image;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder"))) {
            image = ort.fp16("z", z, 1, 128, gh, gw).run().get("image");
        }
        // The reference of a spec without a unified graph decodes through the split chain.
        float[] split = new SyntheticReference(SyntheticBundleSpec.builder().build()).decodeLatent(z, gw, gh);
        float[] expected = bundle.reference().decodeLatent(z, gw, gh);
        Agreement.assertClose("unified vs reference", expected, image, Agreement.CHAIN);
        Agreement.assertClose("unified vs split reference", split, expected, Agreement.EXACT);
    }

    @Test
    void singlePostGraphComputesTheFourStages() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .singleVaePost(true)
                        .variant(BundleVariant.REVERSED_STAGE_ZERO_INPUTS)
                        .build(),
                dir);
        SyntheticReference ref = bundle.reference();
        int gh = 2;
        int gw = 3;
        int s = 4 * gh * gw;
        int hd = bundle.spec().vaeHeadDim();
        float[] z = TestData.gaussian(new Random(12), 128 * gh * gw);
        VaeDecoderPreOutputs pre = ref.decoderPre(z, gw, gh);
        float[] attn = ref.attentionRows(pre.query(), pre.keyTransposed(), pre.value());
        float[] image;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_post"))) {
            assertEquals(
                    List.of(TensorNames.VAE_ATTENTION, TensorNames.VAE_RESIDUAL),
                    List.copyOf(ort.session().getInputNames()),
                    "reversed stage-zero inputs");
            image = ort.fp16(
                            TensorNames.VAE_RESIDUAL,
                            pre.residual(),
                            1,
                            SyntheticDims.RESIDUAL_CHANNELS,
                            2 * gh,
                            2 * gw)
                    .fp16(TensorNames.VAE_ATTENTION, attn, 1, 1, s, hd)
                    .run()
                    .get("image");
        }
        float[] x = ref.postStage0(pre.residual(), attn, gw, gh);
        x = ref.postStage1(x, gw, gh);
        x = ref.postStage2(x, gw, gh);
        Agreement.assertClose("single post graph", ref.postStage3(x, gw, gh), image, Agreement.CHAIN);
        JsonNode post = config(bundle).get("models").get("vae_decoder_post");
        assertEquals(TensorNames.VAE_RESIDUAL, post.get("residual_input").asText());
        assertEquals(TensorNames.VAE_ATTENTION, post.get("attn_input").asText());
        assertFalse(config(bundle).has("vae_decoder_post_stage_keys"));
    }

    @Test
    void fp32TransformerWithInt64IdsMatchesWithoutRounding() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .activationType(TensorElementType.FLOAT)
                .idType(TensorElementType.INT64)
                .variant(BundleVariant.IDS_WITHOUT_BATCH, BundleVariant.SCALAR_TIMESTEP)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        SyntheticReference ref = bundle.reference();
        Random rnd = new Random(21);
        int tokens = 12;
        float[] ids = ReferenceMath.imageIds(3, 4);
        float[] x = TestData.gaussian(rnd, tokens * 128);
        int l = spec.textSequenceLength();
        float[] ctx = TestData.uniform(rnd, l * spec.contextDim(), -1, 1);
        float sigma = 0.3173f;
        float[] actual;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
            ort.f32("x", x, 1, tokens, 128)
                    .i64("x_ids", longs(ids), tokens, 4)
                    .f32("timesteps", new float[] {sigma})
                    .f32("ctx", ctx, 1, l, spec.contextDim())
                    .i64("ctx_ids", longs(ReferenceMath.textIds(l)), l, 4);
            actual = ort.run().get("pred");
        }
        float[] expected = ref.velocity(x, ids, sigma, ctx);
        assertFp32Close("fp32 pred", expected, actual);
        // The fp16 reference of the same weights rounds and so differs: the fp32 check is not vacuous.
        float[] half = new SyntheticReference(SyntheticBundleSpec.builder().build()).velocity(x, ids, sigma, ctx);
        assertTrue(Agreement.maxAbsDiff(half, expected) > 1e-4, "fp16 and fp32 references should differ");
        assertEquals(
                "float32",
                config(bundle)
                        .get("models")
                        .get("transformer")
                        .get("activation_dtype")
                        .asText());
    }

    @Test
    void fp32UnifiedDecoderMatchesWithoutRounding() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .unifiedVaeDecoder(true)
                        .graphActivationType("vae_decoder", TensorElementType.FLOAT)
                        .build(),
                dir);
        int gh = 2;
        int gw = 2;
        float[] z = TestData.gaussian(new Random(13), 128 * gh * gw);
        float[] image;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder"))) {
            image = ort.f32("z", z, 1, 128, gh, gw).run().get("image");
        }
        assertFp32Close("fp32 unified decoder", bundle.reference().decodeLatent(z, gw, gh), image);
    }

    @Test
    void staticShapesFixEveryDimension() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .defaultSize(48, 32)
                .vaeChunkSize(16)
                .variant(BundleVariant.STATIC_SHAPES)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        for (BundleGraph g : spec.graphs()) {
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile(g.key()))) {
                for (Map<String, NodeInfo> infos :
                        List.of(ort.session().getInputInfo(), ort.session().getOutputInfo())) {
                    for (NodeInfo n : infos.values()) {
                        for (long d : ((TensorInfo) n.getInfo()).getShape()) {
                            assertTrue(d >= 0, g.key() + " " + n.getName() + " has a free dimension");
                        }
                    }
                }
            }
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
            assertEquals(
                    List.of(1L, 6L, 128L),
                    boxed(((TensorInfo) ort.session().getInputInfo().get("x").getInfo()).getShape()),
                    "image_seq = (32/16)(48/16)");
        }
    }

    @Test
    void configVariantsAreWritten() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .zeroPaddedContext(true)
                        .contextClip(0.25f)
                        .tokenType(TensorElementType.INT32)
                        .variant(
                                BundleVariant.REVERSED_MANIFESTS,
                                BundleVariant.NO_CONFIG_TENSOR_NAMES,
                                BundleVariant.MINIMAL_INLINE_SHARDS,
                                BundleVariant.TEXT_POSITION_IDS)
                        .build(),
                dir);
        JsonNode c = config(bundle);
        assertTrue(c.get("zero_padded_context").asBoolean());
        assertEquals(0.25, c.get("context_clip").asDouble(), 1e-9);
        assertFalse(c.get("models").get("transformer").has("inputs"));
        JsonNode pre = c.get("models").get("vae_decoder_pre").get("shards");
        assertTrue(pre.has("onnx_bytes") && !pre.has("count") && !pre.has("total_bytes"), pre.toString());
        String manifest = Files.readString(bundle.manifestFile("transformer").orElseThrow());
        assertTrue(manifest.indexOf("00002") < manifest.indexOf("00001"), manifest);
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("text_encoder"))) {
            assertEquals(
                    List.of("input_ids", "attention_mask", "position_ids"),
                    List.copyOf(ort.session().getInputNames()));
            assertEquals(
                    ai.onnxruntime.OnnxJavaType.INT32,
                    ((TensorInfo) ort.session().getInputInfo().get("input_ids").getInfo()).type);
        }
    }

    @Test
    void conditionedContextZeroesPaddingRowsAndClips() {
        SyntheticBundleSpec plain = SyntheticBundleSpec.builder().build();
        SyntheticReference conditioned = new SyntheticReference(SyntheticBundleSpec.builder()
                .zeroPaddedContext(true)
                .contextClip(0.3f)
                .build());
        int l = plain.textSequenceLength();
        int d = plain.contextDim();
        long[] ids = new long[l];
        long[] mask = new long[l];
        for (int i = 0; i < l; i++) {
            ids[i] = i < 10 ? 1000 + 37 * i : 151643;
            mask[i] = i < 10 ? 1 : 0;
        }
        float[] raw = new SyntheticReference(plain).textContext(ids, mask);
        float[] ctx = conditioned.conditionedContext(ids, mask);
        int clipped = 0;
        for (int i = 0; i < ctx.length; i++) {
            boolean pad = mask[i / d] == 0;
            float want = pad ? 0f : Fp16.round(Math.max(-0.3f, Math.min(0.3f, raw[i])));
            assertEquals(want, ctx[i], "ctx[" + i + "]");
            clipped += !pad && Math.abs(raw[i]) > 0.3f ? 1 : 0;
        }
        assertTrue(clipped > 0 && clipped < 10 * d, "the clip should change some but not all values: " + clipped);
        assertNotEquals(0f, raw[(l - 1) * d], "padding rows are non-zero before zeroing");
    }

    @Test
    void bfloat16RoundsToNearestEven() {
        assertEquals(1.0f, Rounding.bfloat16(1.0f));
        assertEquals(1.0078125f, Rounding.bfloat16(1.0078125f), "exactly representable");
        assertEquals(1.0f, Rounding.bfloat16(1.00390625f), "halfway, ties to the even 1.0");
        assertEquals(1.015625f, Rounding.bfloat16(1.01171875f), "halfway, ties to the even 1.015625");
        assertEquals(1.0078125f, Rounding.bfloat16(1.0040f), "just above halfway rounds up");
        assertEquals(-3.140625f, Rounding.bfloat16(-3.1415927f));
    }

    private static long[] longs(float[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (long) values[i];
        }
        return out;
    }

    private static List<Long> boxed(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    private static JsonNode config(SyntheticBundle bundle) throws java.io.IOException {
        return MAPPER.readTree(bundle.configFile().toFile());
    }
}
