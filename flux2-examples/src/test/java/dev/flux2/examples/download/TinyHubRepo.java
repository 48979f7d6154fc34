package dev.flux2.examples.download;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * A small repository in the layout of the q4 bundle, with random bytes as graph and shard content (the downloader
 * checks presence and sizes, not graph contents): a sharded text encoder and transformer (the fused graph shares the
 * transformer's manifest and is absent, as in the pinned revision), an inline split VAE decoder (pre, attention
 * chunk, post), an absent VAE encoder, and a tokenizer folder without {@code chat_template.jinja}. The config is one
 * the backend reads (the downloader learns the files from the backend). Shard sizes span several 64 KiB transfer
 * buffers.
 */
final class TinyHubRepo {
    static final String TE_SHARD_1 = "te-00001.onnx_data";
    static final String TE_SHARD_2 = "te-00002.onnx_data";
    static final String TR_SHARD_1 = "tr-00001.onnx_data";
    static final int TE_SHARD_1_BYTES = 300_000;
    static final int TE_SHARD_2_BYTES = 120_000;
    static final int TR_SHARD_1_BYTES = 200_000;
    static final int VAE_BYTES = 70_000;
    static final int VAE_ATTN_BYTES = 3_000;
    static final int VAE_POST_BYTES = 9_000;

    private TinyHubRepo() {}

    /**
     * Writes the repository.
     *
     * @param dir an empty folder
     * @param configEdit lets a test change the config (for mismatch cases) before it is written
     */
    static void write(Path dir, java.util.function.Consumer<ObjectNode> configEdit) throws IOException {
        Random random = new Random(7);
        Files.createDirectories(dir.resolve("tokenizer"));
        Files.writeString(dir.resolve("tokenizer/tokenizer.json"), "{\"model\": {\"type\": \"BPE\"}}");
        Files.writeString(dir.resolve("tokenizer/tokenizer_config.json"), "{\"pad_token\": \"<|endoftext|>\"}");
        bytes(dir.resolve("te.onnx"), 5_000, random);
        bytes(dir.resolve(TE_SHARD_1), TE_SHARD_1_BYTES, random);
        bytes(dir.resolve(TE_SHARD_2), TE_SHARD_2_BYTES, random);
        bytes(dir.resolve("tr.onnx"), 4_000, random);
        bytes(dir.resolve(TR_SHARD_1), TR_SHARD_1_BYTES, random);
        bytes(dir.resolve("vae.onnx"), VAE_BYTES, random);
        bytes(dir.resolve("vae-attn.onnx"), VAE_ATTN_BYTES, random);
        bytes(dir.resolve("vae-post.onnx"), VAE_POST_BYTES, random);
        Files.writeString(dir.resolve("te-manifest.json"), "[\"" + TE_SHARD_1 + "\", \"" + TE_SHARD_2 + "\"]\n");
        Files.writeString(dir.resolve("tr-manifest.json"), "[\n  \"" + TR_SHARD_1 + "\"\n]\n");

        ObjectMapper json = new ObjectMapper();
        ObjectNode config = json.createObjectNode();
        config.put("model_variant", "tiny-test");
        config.put("num_steps", 4);
        config.put("guidance", 1.0);
        config.put("text_seq_len", 32);
        config.put("context_dim", 64);
        config.put("default_width", 64);
        config.put("default_height", 64);
        config.put("tokenizer_dir", "tokenizer");
        ObjectNode models = config.putObject("models");
        sharded(
                models.putObject("text_encoder"),
                "te.onnx",
                "te-manifest.json",
                2,
                TE_SHARD_1_BYTES + TE_SHARD_2_BYTES,
                TE_SHARD_1_BYTES);
        sharded(models.putObject("transformer"), "tr.onnx", "tr-manifest.json", 1, TR_SHARD_1_BYTES, TR_SHARD_1_BYTES);
        inline(models.putObject("vae_decoder_pre"), "vae.onnx", VAE_BYTES);
        inline(models.putObject("vae_decoder_attn_chunk"), "vae-attn.onnx", VAE_ATTN_BYTES);
        inline(models.putObject("vae_decoder_post"), "vae-post.onnx", VAE_POST_BYTES);
        sharded(
                models.putObject("transformer_fused_4step"),
                "tr-fused-4step.onnx",
                "tr-manifest.json",
                1,
                TR_SHARD_1_BYTES,
                TR_SHARD_1_BYTES);
        inline(models.putObject("vae_encoder"), "vae-encoder.onnx", 1234);
        configEdit.accept(config);
        Files.write(
                dir.resolve("flux2-config.json"),
                json.writerWithDefaultPrettyPrinter().writeValueAsString(config).getBytes(StandardCharsets.UTF_8));
    }

    /** @return the paths of every file in the repository, relative, with '/' separators */
    static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList();
        }
    }

    private static void sharded(ObjectNode m, String file, String manifest, int count, long total, long largest) {
        m.put("file", file);
        m.put("manifest", manifest);
        ObjectNode shards = m.putObject("shards");
        shards.put("count", count);
        shards.put("total_bytes", total);
        shards.put("largest_bytes", largest);
    }

    private static void inline(ObjectNode m, String file, long bytes) {
        m.put("file", file);
        ObjectNode shards = m.putObject("shards");
        shards.put("count", 0);
        shards.put("total_bytes", 0);
        shards.put("onnx_bytes", bytes);
    }

    private static void bytes(Path file, int n, Random random) throws IOException {
        byte[] b = new byte[n];
        random.nextBytes(b);
        Files.write(file, b);
    }
}
