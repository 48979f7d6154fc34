package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.TensorInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hlhc-layout bundle: hlhc's file names and tensor names, one {@code .onnx.data} per graph, no
 * {@code flux2-config.json}, and graphs that ONNX Runtime's CPU provider runs with MatMulNBits 4-bit block 128 (text
 * encoder) and 8-bit block 128 (transformer), each matching the reference, which dequantizes the weights itself.
 * fp32 activations: graph and reference differ by fp32 rounding only.
 */
class HlhcGraphsTest {
    /** fp32 graph against a double reference of O(1) values summed over ≤ 128 terms. */
    private static final Agreement.Tolerance FP32 = new Agreement.Tolerance(0, 1e-5);

    @TempDir
    static Path dir;

    private static SyntheticBundle bundle;

    @BeforeAll
    static void write() {
        bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .hlhcLayout()
                        .variant(BundleVariant.UNKNOWN_CONFIG_JSON)
                        .build(),
                dir.resolve("hlhc"));
    }

    @Test
    void filesAreHlhcs() throws Exception {
        Path d = bundle.directory();
        for (String graph : List.of("text_encoder", "transformer", "vae_decoder", "vae_encoder")) {
            assertTrue(Files.isRegularFile(d.resolve(graph + ".onnx")), graph);
            assertTrue(Files.size(d.resolve(graph + ".onnx.data")) > 0, graph + ".onnx.data");
        }
        assertFalse(Files.exists(d.resolve("flux2-config.json")));
        assertTrue(Files.isRegularFile(d.resolve("config.json")));
        assertTrue(Files.isRegularFile(d.resolve("tokenizer/tokenizer.json")));
        try (var files = Files.list(d)) {
            assertEquals(
                    List.of(),
                    files.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith("manifest.json") || n.endsWith(".onnx_data"))
                            .toList());
        }
    }

    @Test
    void tensorNamesTypesAndShapesAreHlhcs() throws Exception {
        SyntheticBundleSpec spec = bundle.spec();
        int l = spec.textSequenceLength();
        int d = spec.contextDim();
        assertSignature(
                "text_encoder",
                List.of("input_ids INT64 [1, " + l + "]", "attention_mask INT64 [1, " + l + "]"),
                List.of("prompt_embeds FLOAT [1, " + l + ", " + d + "]"));
        assertSignature(
                "transformer",
                List.of(
                        "hidden_states FLOAT [1, -1, 128]",
                        "encoder_hidden_states FLOAT [1, " + l + ", " + d + "]",
                        "timestep FLOAT [1]",
                        "img_ids INT64 [1, -1, 4]",
                        "txt_ids INT64 [1, " + l + ", 4]"),
                List.of("noise_pred FLOAT [1, -1, 128]"));
        assertSignature(
                "vae_decoder", List.of("latents FLOAT [1, 128, -1, -1]"), List.of("image FLOAT [1, 3, -1, -1]"));
        assertSignature(
                "vae_encoder", List.of("image FLOAT [1, 3, -1, -1]"), List.of("latents FLOAT [1, 128, -1, -1]"));
    }

    private static void assertSignature(String key, List<String> inputs, List<String> outputs) throws Exception {
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile(key))) {
            assertEquals(inputs, describe(ort.session().getInputInfo()), key + " inputs");
            assertEquals(outputs, describe(ort.session().getOutputInfo()), key + " outputs");
        }
    }

    private static List<String> describe(Map<String, NodeInfo> infos) {
        List<String> out = new ArrayList<>();
        for (NodeInfo n : infos.values()) {
            TensorInfo t = (TensorInfo) n.getInfo();
            out.add(n.getName() + " " + t.type + " " + java.util.Arrays.toString(t.getShape()));
        }
        return out;
    }

    @Test
    void fourBitBlock128TextEncoderMatchesTheReference() throws Exception {
        SyntheticBundleSpec spec = bundle.spec();
        assertEquals(QuantSpec.Q4_BLOCK128, spec.textEncoderQuant());
        assertEquals(128, spec.textFeatures());
        int l = spec.textSequenceLength();
        Random rnd = new Random(3);
        long[] ids = new long[l];
        long[] mask = new long[l];
        for (int i = 0; i < l; i++) {
            ids[i] = i < 20 ? rnd.nextInt(151_669) : 151_643;
            mask[i] = i < 20 ? 1 : 0;
        }
        float[] expected = bundle.reference().textContext(ids, mask);
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("text_encoder"))) {
            ort.i64("input_ids", ids, 1, l).i64("attention_mask", mask, 1, l);
            float[] actual = ort.run().get("prompt_embeds");
            Agreement.assertClose("prompt_embeds", expected, actual, FP32);
            double max = Agreement.maxAbs(expected);
            assertTrue(max > 0.3 && max < 4, "context values should be O(1): max " + max);
        }
    }

    @Test
    void eightBitBlock128TransformerMatchesTheReference() throws Exception {
        SyntheticBundleSpec spec = bundle.spec();
        assertEquals(QuantSpec.Q8_BLOCK128, spec.transformerQuant());
        SyntheticReference ref = bundle.reference();
        Random rnd = new Random(11);
        int gh = 3;
        int gw = 4;
        int tokens = gh * gw + 4;
        float[] ids = TestData.concat(ReferenceMath.imageIds(gh, gw), ReferenceMath.referenceIds(0, 2, 2));
        long[] longIds = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            longIds[i] = (long) ids[i];
        }
        float[] textIds = ReferenceMath.textIds(spec.textSequenceLength());
        long[] longTextIds = new long[textIds.length];
        for (int i = 0; i < textIds.length; i++) {
            longTextIds[i] = (long) textIds[i];
        }
        float[] x = TestData.gaussian(rnd, tokens * 128);
        int l = spec.textSequenceLength();
        float[] ctx = TestData.uniform(rnd, l * spec.contextDim(), -1, 1);
        float sigma = 0.8771342635154724f;
        float[] expected = ref.velocity(x, ids, sigma, ctx);
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
            ort.f32("hidden_states", x, 1, tokens, 128)
                    .f32("encoder_hidden_states", ctx, 1, l, spec.contextDim())
                    .f32("timestep", new float[] {sigma}, 1)
                    .i64("img_ids", longIds, 1, tokens, 4)
                    .i64("txt_ids", longTextIds, 1, l, 4);
            float[] actual = ort.run().get("noise_pred");
            Agreement.assertClose("noise_pred", expected, actual, FP32);
            double max = Agreement.maxAbs(expected);
            assertTrue(max > 0.5 && max < 4, "prediction should be O(1), max " + max);
        }
    }

    @Test
    void eightBitWeightsUseTheirFullRange() {
        QuantizedMatrix m = TransformerWeights.generate(bundle.spec()).tokenProjection();
        int max = 0;
        for (byte c : m.codes()) {
            max = Math.max(max, c & 0xFF);
        }
        assertTrue(max > 200, "8-bit codes should reach above 200, max " + max);
    }
}
