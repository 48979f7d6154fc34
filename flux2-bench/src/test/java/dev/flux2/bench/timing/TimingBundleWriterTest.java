package dev.flux2.bench.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.timing.TimingBundle;
import dev.flux2.testkit.timing.TimingBundleSpec;
import dev.flux2.testkit.timing.TimingBundleWriter;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The timing bundle's config describes its replaced transformer. */
class TimingBundleWriterTest {

    @Test
    void configDescribesTheTimingTransformerShardsAndWidth(@TempDir Path dir) throws Exception {
        TimingBundle bundle = TimingBundleWriter.write(
                TimingBundleSpec.builder()
                        .transformer(TimingTransformerSpec.tiny())
                        .defaultSize(64, 32)
                        .textSequenceLength(16)
                        .build(),
                dir);
        JsonNode root =
                new ObjectMapper().readTree(dir.resolve("flux2-config.json").toFile());
        assertEquals(64, root.get("context_dim").asInt());
        assertEquals(16, root.get("text_seq_len").asInt());
        assertEquals(64, root.get("default_width").asInt());
        assertEquals(32, root.get("default_height").asInt());
        assertFalse(root.get("models").has("transformer_fused_4step"));
        JsonNode t = root.get("models").get("transformer");
        long first = Files.size(dir.resolve("transformer-q4-00001.onnx_data"));
        long second = Files.size(dir.resolve("transformer-q4-00002.onnx_data"));
        assertEquals(2, t.get("shards").get("count").asInt());
        assertEquals(first + second, t.get("shards").get("total_bytes").asLong());
        assertEquals(
                Math.max(first, second), t.get("shards").get("largest_bytes").asLong());
        assertEquals(19, t.get("quantization").get("matmul_nbits_nodes").asInt());
        // Two blocks, two head groups each: q·kᵀ and probs·v per group.
        assertEquals(
                2 * 2 * 2, t.get("quantization").get("remaining_matmul_nodes").asInt());
        assertTrue(first + second >= bundle.transformer().weightBytes());
        assertTrue(Files.isRegularFile(dir.resolve("tokenizer").resolve("tokenizer.json")));
    }
}
