package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.SeedConfigFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File and size checks on a bundle laid out like the seed config but with small files: every inline graph is
 * 100 bytes, every sharded graph has two shards of 300 and 100 bytes. The graph files need not be valid ONNX
 * here; only presence and sizes are checked.
 */
class BundleValidatorTest {
    private static final int INLINE = 100;
    private static final int BIG_SHARD = 300;
    private static final int SMALL_SHARD = 100;

    @TempDir
    Path dir;

    private BundleConfig config;

    @BeforeEach
    void writeBundle() throws IOException {
        ObjectNode root = SeedConfigFiles.seedConfig();
        Iterator<Map.Entry<String, JsonNode>> models = root.get("models").fields();
        while (models.hasNext()) {
            ObjectNode entry = (ObjectNode) models.next().getValue();
            Files.write(dir.resolve(entry.get("file").asText()), new byte[INLINE]);
            ObjectNode shards = entry.putObject("shards");
            if (entry.has("manifest")) {
                String manifest = entry.get("manifest").asText();
                String stem = manifest.replace("-manifest.json", "");
                String a = stem + "-00001.onnx_data";
                String b = stem + "-00002.onnx_data";
                Files.writeString(dir.resolve(manifest), "[\n  \"" + a + "\",\n  \"" + b + "\"\n]\n");
                Files.write(dir.resolve(a), new byte[BIG_SHARD]);
                Files.write(dir.resolve(b), new byte[SMALL_SHARD]);
                shards.put("count", 2)
                        .put("total_bytes", BIG_SHARD + SMALL_SHARD)
                        .put("largest_bytes", BIG_SHARD);
            } else {
                shards.put("count", 0).put("total_bytes", 0).put("onnx_bytes", INLINE);
            }
        }
        Path tok = Files.createDirectories(dir.resolve("tokenizer"));
        Files.writeString(tok.resolve("tokenizer.json"), "{}");
        Files.writeString(tok.resolve("tokenizer_config.json"), "{}");
        config = BundleConfigReader.read(SeedConfigFiles.write(root, dir.resolve(BundleConfigReader.FILE_NAME)));
    }

    private String problem() {
        return assertThrows(ModelLoadException.class, () -> BundleValidator.validate(config))
                .getMessage();
    }

    @Test
    void completeBundlePasses() {
        BundleInventory inventory = BundleValidator.validate(config);
        assertTrue(inventory.problems().isEmpty());
        // config + 10 graphs + 2 manifests + 4 shards + 2 tokenizer files
        assertEquals(19, inventory.files().size(), inventory.files().toString());
    }

    @Test
    void eachMissingGraphFileIsNamed() throws IOException {
        for (ModelEntry entry : config.models().values()) {
            Path file = dir.resolve(entry.file());
            byte[] content = Files.readAllBytes(file);
            Files.delete(file);
            String msg = problem();
            assertTrue(
                    msg.contains(entry.file())
                            && msg.contains("models." + entry.key() + ".file")
                            && msg.contains("missing"),
                    msg);
            Files.write(file, content);
        }
    }

    @Test
    void missingManifestIsNamed() throws IOException {
        Files.delete(dir.resolve("transformer-q4-manifest.json"));
        String msg = problem();
        assertTrue(msg.contains("manifest transformer-q4-manifest.json") && msg.contains("missing"), msg);
    }

    @Test
    void missingShardIsNamed() throws IOException {
        Files.delete(dir.resolve("text-encoder-q4-00002.onnx_data"));
        String msg = problem();
        assertTrue(msg.contains("shard text-encoder-q4-00002.onnx_data") && msg.contains("missing"), msg);
    }

    @Test
    void truncatedShardIsNamedWithExpectedAndActualSize() throws IOException {
        Files.write(dir.resolve("transformer-q4-00001.onnx_data"), new byte[250]);
        String msg = problem();
        assertTrue(msg.contains("shard transformer-q4-00001.onnx_data is 250 bytes, expected 300"), msg);
        assertTrue(msg.contains("truncated"), msg);
    }

    @Test
    void truncatedSmallShardIsNamedToo() throws IOException {
        Files.write(dir.resolve("transformer-q4-00002.onnx_data"), new byte[10]);
        String msg = problem();
        assertTrue(msg.contains("shard transformer-q4-00002.onnx_data is 10 bytes, expected 100"), msg);
    }

    @Test
    void truncatedInlineGraphIsNamedWithSizes() throws IOException {
        Files.write(dir.resolve("flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx"), new byte[60]);
        String msg = problem();
        assertTrue(
                msg.contains("flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx is 60 bytes, expected 100")
                        && msg.contains("onnx_bytes"),
                msg);
    }

    @Test
    void manifestMustBeAJsonArray() throws IOException {
        Files.writeString(dir.resolve("text-encoder-q4-manifest.json"), "{\"shards\": []}");
        String msg = problem();
        assertTrue(msg.contains("text-encoder-q4-manifest.json") && msg.contains("JSON array"), msg);
    }

    @Test
    void shardCountMustMatch() throws IOException {
        Files.writeString(dir.resolve("text-encoder-q4-manifest.json"), "[\"text-encoder-q4-00001.onnx_data\"]");
        String msg = problem();
        assertTrue(msg.contains("lists 1 shard(s), expected 2"), msg);
    }

    @Test
    void eachMissingTokenizerFileIsNamed() throws IOException {
        for (String name : BundleValidator.TOKENIZER_FILES) {
            Path file = dir.resolve("tokenizer").resolve(name);
            Files.delete(file);
            String msg = problem();
            assertTrue(msg.contains("tokenizer/" + name) && msg.contains("missing"), msg);
            Files.writeString(file, "{}");
        }
    }

    @Test
    void allProblemsAreReportedTogether() throws IOException {
        Files.delete(dir.resolve("flux2-klein-4b-vae-encoder-fp16.onnx"));
        Files.delete(dir.resolve("tokenizer").resolve("tokenizer.json"));
        String msg = problem();
        assertTrue(msg.contains("2 problems") && msg.contains("vae-encoder") && msg.contains("tokenizer.json"), msg);
    }

    @Test
    void threeShardsAreListedWhenNoSingleShardCanBeBlamed() {
        ShardInfo info = new ShardInfo(3, 700, 300, -1);
        String msg = ShardSizeCheck.check(
                        "transformer",
                        "m.json",
                        java.util.List.of("a", "b", "c"),
                        java.util.List.of(300L, 300L, 50L),
                        info)
                .orElseThrow();
        assertTrue(msg.contains("total 650 bytes, expected 700") && msg.contains("a=300 b=300 c=50"), msg);
        assertTrue(ShardSizeCheck.check(
                        "transformer",
                        "m.json",
                        java.util.List.of("a", "b", "c"),
                        java.util.List.of(300L, 300L, 100L),
                        info)
                .isEmpty());
    }
}
