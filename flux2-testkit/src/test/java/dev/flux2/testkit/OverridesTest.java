package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failure-test overrides change only the graph file, and the overridden graph still computes the same function. */
class OverridesTest {
    @TempDir
    Path dir;

    @Test
    void renamedInputAppearsOnlyInTheGraphFile() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .fused(FusedConvention.ENGINE)
                .renameInput("transformer", "x", "hidden_states")
                .renameInput("vae_decoder_post_stage_0", TensorNames.VAE_ATTENTION, "/decoder/attn_1/Other")
                .renameInput("transformer_fused_4step", "dt_2", "dt2")
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
            assertEquals(
                    List.of("hidden_states", "x_ids", "timesteps", "ctx", "ctx_ids"),
                    new ArrayList<>(ort.session().getInputNames()));
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_post_stage_0"))) {
            assertTrue(ort.session().getInputNames().contains("/decoder/attn_1/Other"));
            assertFalse(ort.session().getInputNames().contains(TensorNames.VAE_ATTENTION));
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer_fused_4step"))) {
            assertTrue(ort.session().getInputNames().contains("dt2"));
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("text_encoder"))) {
            assertEquals(
                    List.of("input_ids", "attention_mask"),
                    new ArrayList<>(ort.session().getInputNames()));
        }
        JsonNode config = new ObjectMapper().readTree(bundle.configFile().toFile());
        assertEquals(
                "x",
                config.get("models").get("transformer").get("inputs").get(0).asText(),
                "the config keeps the real name");
        assertEquals(
                "dt_2",
                config.get("models")
                        .get("transformer_fused_4step")
                        .get("inputs")
                        .get(10)
                        .asText());
    }

    @Test
    void changedElementTypeIsDeclaredAndTheGraphStillComputes() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .inputElementType("transformer", "timesteps", TensorElementType.FLOAT)
                .inputElementType("text_encoder", "input_ids", TensorElementType.INT32)
                .inputElementType("vae_encoder", "image", TensorElementType.FLOAT)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        SyntheticReference ref = bundle.reference();
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
            TensorInfo info =
                    (TensorInfo) ort.session().getInputInfo().get("timesteps").getInfo();
            assertEquals(OnnxJavaType.FLOAT, info.type);
            TensorInfo x = (TensorInfo) ort.session().getInputInfo().get("x").getInfo();
            assertEquals(OnnxJavaType.FLOAT16, x.type, "other inputs unchanged");
            Random rnd = new Random(2);
            float[] tokens = TestData.gaussian(rnd, 16 * 128);
            float[] ids = ReferenceMath.imageIds(4, 4);
            float[] ctx = Fp16.rounded(TestData.uniform(rnd, 64 * 32, -1, 1));
            float sigma = 0.5f;
            ort.fp16("x", tokens, 1, 16, 128)
                    .f32("x_ids", ids, 1, 16, 4)
                    .f32("timesteps", new float[] {sigma}, 1)
                    .fp16("ctx", ctx, 1, 64, 32)
                    .f32("ctx_ids", ReferenceMath.textIds(64), 1, 64, 4);
            Agreement.assertClose(
                    "pred with fp32 timesteps",
                    ref.velocity(tokens, ids, sigma, ctx),
                    ort.run().get("pred"),
                    Agreement.SINGLE);
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("text_encoder"))) {
            TensorInfo info =
                    (TensorInfo) ort.session().getInputInfo().get("input_ids").getInfo();
            assertEquals(OnnxJavaType.INT32, info.type);
        }
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_encoder"))) {
            TensorInfo info =
                    (TensorInfo) ort.session().getInputInfo().get("image").getInfo();
            assertEquals(OnnxJavaType.FLOAT, info.type);
        }
        JsonNode config = new ObjectMapper().readTree(bundle.configFile().toFile());
        assertEquals(
                "timesteps",
                config.get("models").get("transformer").get("inputs").get(2).asText());
    }
}
