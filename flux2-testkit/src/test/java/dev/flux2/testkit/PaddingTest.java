package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transformer padding: extra MatMulNBits weights in the shards that ORT loads and uses, without changing the
 * result (every padding code equals its zero point, so each padding weight dequantizes to exactly 0).
 */
class PaddingTest {
    @TempDir
    Path dir;

    @Test
    void paddingGrowsTheShardsAndKeepsTheResult() throws Exception {
        long padding = 3_000_000;
        SyntheticBundle plain = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.LISTED).build(), dir.resolve("plain"));
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .fused(FusedConvention.LISTED)
                .transformerPaddingBytes(padding)
                .build();
        SyntheticBundle padded = SyntheticBundleWriter.write(spec, dir.resolve("padded"));
        long before = size(plain);
        long after = size(padded);
        assertTrue(after - before >= padding, "shards grow by at least the padding: " + (after - before));
        assertTrue(
                after - before < padding + SyntheticDims.PADDING_BYTES_PER_COLUMN + 256,
                "and by at most one column plus alignment: " + (after - before));
        JsonNode config = new ObjectMapper().readTree(padded.configFile().toFile());
        assertEquals(
                after,
                config.get("models")
                        .get("transformer")
                        .get("shards")
                        .get("total_bytes")
                        .asLong());
        assertEquals(
                2,
                config.get("models")
                        .get("transformer")
                        .get("quantization")
                        .get("matmul_nbits_nodes")
                        .asInt());
        assertEquals(
                8,
                config.get("models")
                        .get("transformer_fused_4step")
                        .get("quantization")
                        .get("matmul_nbits_nodes")
                        .asInt());

        Random rnd = new Random(9);
        float[] x = TestData.gaussian(rnd, 16 * 128);
        float[] ids = ReferenceMath.imageIds(4, 4);
        float[] ctx = Fp16.rounded(TestData.uniform(rnd, 64 * 32, -1, 1));
        float[] textIds = ReferenceMath.textIds(64);
        try (OrtHarness ort = OrtHarness.open(padded.graphFile("transformer"))) {
            ort.fp16("x", x, 1, 16, 128)
                    .f32("x_ids", ids, 1, 16, 4)
                    .fp16("timesteps", new float[] {0.8f}, 1)
                    .fp16("ctx", ctx, 1, 64, 32)
                    .f32("ctx_ids", textIds, 1, 64, 4);
            Agreement.assertClose(
                    "padded pred",
                    padded.reference().velocity(x, ids, 0.8f, ctx),
                    ort.run().get("pred"),
                    Agreement.SINGLE);
        }
        float[] sigmas = {1f, 0.75f, 0.5f, 0.25f, 0f};
        try (OrtHarness ort = OrtHarness.open(padded.graphFile("transformer_fused_4step"))) {
            ort.fp16("x", x, 1, 16, 128)
                    .f32("x_ids", ids, 1, 16, 4)
                    .fp16("timesteps", new float[] {1f, 0.75f, 0.5f, 0.25f}, 4)
                    .fp16("ctx", ctx, 1, 64, 32)
                    .f32("ctx_ids", textIds, 1, 64, 4);
            Agreement.assertClose(
                    "padded fused latent",
                    padded.reference().fusedLatent(x, ids, sigmas, ctx),
                    ort.run().get("latent"),
                    Agreement.CHAIN);
        }
    }

    private static long size(SyntheticBundle b) throws Exception {
        long n = 0;
        for (Path p : b.shardFiles("transformer")) {
            n += Files.size(p);
        }
        return n;
    }
}
