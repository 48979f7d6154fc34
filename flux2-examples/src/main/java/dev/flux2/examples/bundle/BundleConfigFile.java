package dev.flux2.examples.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The parts of a bundle's {@code flux2-config.json} the examples need without a pipeline: the tokenizer folder and
 * length (for {@code flux2 tokenize}) and the graph/shard inventory used to plan and verify a download. Generation
 * defaults (steps, guidance, size) are not read here: the pipeline resolves them and reports them in
 * {@code ModelInfo}. This is deliberately a small, independent reader (the examples use only the public API).
 *
 * @param modelVariant the {@code model_variant} label ({@code model_name}, or "unknown", when absent)
 * @param textSeqLen {@code text_seq_len}, the tokenizer's padded length
 * @param tokenizerDir {@code tokenizer_dir}, relative to the bundle folder ({@code tokenizer} when absent)
 * @param graphs one entry per {@code models.*} entry, in file order
 */
public record BundleConfigFile(String modelVariant, int textSeqLen, String tokenizerDir, List<GraphFile> graphs) {

    /** The config's file name inside a bundle folder. */
    public static final String FILE_NAME = "flux2-config.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Checks for nulls and copies the list. */
    public BundleConfigFile {
        Objects.requireNonNull(modelVariant, "modelVariant");
        Objects.requireNonNull(tokenizerDir, "tokenizerDir");
        graphs = List.copyOf(graphs);
    }

    /**
     * One graph of the bundle as the config describes it.
     *
     * @param key the {@code models} key (for example {@code transformer})
     * @param file the graph file name
     * @param manifest the external-data manifest file name, if the graph has one
     * @param shards what the config promises about the graph's weights
     */
    public record GraphFile(String key, String file, Optional<String> manifest, ShardFacts shards) {
        /** Checks for nulls. */
        public GraphFile {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(manifest, "manifest");
            Objects.requireNonNull(shards, "shards");
        }
    }

    /**
     * The config's {@code shards} object of one graph. Values the config omits are -1.
     *
     * @param count number of external-data shards (0 for inline graphs)
     * @param totalBytes sum of the shard sizes
     * @param largestBytes size of the largest shard
     * @param onnxBytes size of an inline graph file
     */
    public record ShardFacts(int count, long totalBytes, long largestBytes, long onnxBytes) {
        /** Facts of a graph whose config has no {@code shards} object. */
        public static final ShardFacts UNKNOWN = new ShardFacts(-1, -1, -1, -1);
    }

    /**
     * Reads {@code flux2-config.json} from a bundle folder.
     *
     * @param bundleDir the bundle folder
     * @return the parsed config
     * @throws ModelLoadException naming the file when it is missing, unreadable or lacks a required field
     */
    public static BundleConfigFile read(Path bundleDir) {
        Path file = bundleDir.resolve(FILE_NAME);
        JsonNode root;
        try {
            root = JSON.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new ModelLoadException(
                    file.toAbsolutePath() + " does not exist: " + bundleDir.toAbsolutePath()
                            + " is not a FLUX.2 ONNX bundle (run 'flux2 download --dir DIR' to fetch one)",
                    e);
        } catch (IOException e) {
            throw new ModelLoadException(file.toAbsolutePath() + " cannot be read as JSON: " + e.getMessage(), e);
        }
        return parse(root, file.toAbsolutePath().toString());
    }

    /**
     * Parses a config already in memory (the downloader reads it before the folder is complete).
     *
     * @param json the config's bytes
     * @param origin where it came from, for error messages
     * @return the parsed config
     * @throws ModelLoadException naming the origin when it is malformed
     */
    public static BundleConfigFile parse(byte[] json, String origin) {
        try {
            return parse(JSON.readTree(json), origin);
        } catch (IOException e) {
            throw new ModelLoadException(origin + " is not valid JSON: " + e.getMessage(), e);
        }
    }

    private static BundleConfigFile parse(JsonNode root, String origin) {
        if (root == null || !root.isObject()) {
            throw new ModelLoadException(origin + " must hold a JSON object");
        }
        JsonNode models = root.path("models");
        if (!models.isObject() || models.isEmpty()) {
            throw new ModelLoadException(origin + " has no 'models' object naming the graphs");
        }
        List<GraphFile> graphs = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : models.properties()) {
            JsonNode m = e.getValue();
            String graphFile = requiredText(m, "file", origin + " models." + e.getKey());
            Optional<String> manifest =
                    m.hasNonNull("manifest") ? Optional.of(m.get("manifest").asText()) : Optional.empty();
            graphs.add(new GraphFile(e.getKey(), graphFile, manifest, shardFacts(m.path("shards"))));
        }
        return new BundleConfigFile(
                root.path("model_variant").asText(root.path("model_name").asText("unknown")),
                requiredInt(root, "text_seq_len", origin),
                root.path("tokenizer_dir").asText("tokenizer"),
                graphs);
    }

    private static ShardFacts shardFacts(JsonNode shards) {
        if (!shards.isObject()) {
            return ShardFacts.UNKNOWN;
        }
        return new ShardFacts(
                shards.path("count").asInt(-1),
                shards.path("total_bytes").asLong(-1),
                shards.path("largest_bytes").asLong(-1),
                shards.path("onnx_bytes").asLong(-1));
    }

    private static int requiredInt(JsonNode node, String field, String origin) {
        JsonNode v = node.get(field);
        if (v == null || !v.canConvertToInt() || v.asInt() < 1) {
            throw new ModelLoadException(origin + " must have a positive integer '" + field + "', found "
                    + (v == null ? "none" : v.toString()));
        }
        return v.asInt();
    }

    private static String requiredText(JsonNode node, String field, String origin) {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new ModelLoadException(origin + " must have a non-empty string '" + field + "', found "
                    + (v == null ? "none" : v.toString()));
        }
        return v.asText();
    }

    /**
     * Looks up a graph by its {@code models} key.
     *
     * @param key the key
     * @return the graph, if the config names it
     */
    public Optional<GraphFile> graph(String key) {
        return graphs.stream().filter(g -> g.key().equals(key)).findFirst();
    }
}
