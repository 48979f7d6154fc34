package dev.flux2.onnx.bundle;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code flux2-config.json} into a {@link BundleConfig}. Unknown fields are ignored (the config also carries
 * exporter notes); a missing or invalid required field is a {@link ModelLoadException} naming the file and the
 * field's path.
 *
 * <p>Required: {@code text_seq_len}, {@code context_dim}, {@code models} with {@code text_encoder},
 * {@code transformer} and a complete VAE decoder, each entry with a {@code file}. The decoder is either
 * {@code models.vae_decoder} (one graph, used whenever present) or the split chain: {@code vae_decoder_pre},
 * {@code vae_decoder_attn_chunk} and the post graphs, which are the stages listed in
 * {@code vae_decoder_post_stage_keys} (every listed key must then be in {@code models}) or, without such a list,
 * the single {@code models.vae_decoder_post}. {@code tokenizer_dir} defaults to {@code tokenizer}. Everything else
 * is optional with the defaults documented on {@link ModelDefaults}; keys of {@code models} the backend does not
 * use are parsed leniently and otherwise ignored. Stateless and thread-safe.
 */
public final class BundleConfigReader {
    /** The config's file name inside a bundle folder. */
    public static final String FILE_NAME = "flux2-config.json";

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);
    private static final int LATENT_DOWNSAMPLE = 16;
    private static final String DEFAULT_TOKENIZER_DIR = KleinDefaults.TOKENIZER_DIR;
    private static final String STAGE_KEYS = "vae_decoder_post_stage_keys";
    private static final Set<String> KNOWN_KEYS = Set.of(
            GraphKeys.TEXT_ENCODER,
            GraphKeys.TRANSFORMER,
            GraphKeys.TRANSFORMER_FUSED,
            GraphKeys.VAE_DECODER,
            GraphKeys.VAE_DECODER_PRE,
            GraphKeys.VAE_DECODER_ATTN_CHUNK,
            GraphKeys.VAE_DECODER_POST,
            GraphKeys.VAE_ENCODER);
    private static final Logger LOG = LoggerFactory.getLogger(BundleConfigReader.class);

    /** Upper bounds of the config's sizes (klein: 512 tokens of 7680 features, 4 steps, 1024², chunks of 1024). */
    static final int MAX_TEXT_SEQ_LEN = 8192;

    /** klein's config is 3 KB; 4 MiB refuses a runaway file before it fills the heap. */
    static final long MAX_CONFIG_BYTES = 4L << 20;

    static final int MAX_CONTEXT_DIM = 32768;
    /** text_seq_len · context_dim, the context tensor's values (klein: 3.9 M). */
    static final long MAX_CONTEXT_VALUES = 64L << 20;

    static final int MAX_STEPS = 1000;
    static final int MAX_DEFAULT_SIDE = 8192;
    static final int MAX_CHUNK_SIZE = 1 << 20;
    static final int MAX_HEAD_DIM = 4096;

    private BundleConfigReader() {}

    /**
     * @param file the config file
     * @return the parsed, checked config
     * @throws ModelLoadException when the file is missing, not JSON, or a required field is missing or invalid
     */
    public static BundleConfig read(Path file) {
        JsonNode root;
        if (ModelFiles.notRegular(file).filter(p -> p.equals("does not exist")).isPresent()) {
            throw new ModelLoadException(FILE_NAME + " not found: " + file + " (is this an ONNX bundle folder?)");
        }
        byte[] bytes = ModelFiles.readBounded(file, "bundle config", MAX_CONFIG_BYTES);
        try {
            root = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            // A StreamConstraintsException (nesting deeper than Jackson's 500 levels, a number or string too long)
            // may carry no location.
            JsonLocation where = e.getLocation();
            throw new ModelLoadException(
                    file.getFileName() + " (" + file + ") is not valid JSON: " + e.getOriginalMessage()
                            + (where == null
                                    ? ""
                                    : " at line " + where.getLineNr() + ", column " + where.getColumnNr()),
                    e);
        } catch (IOException e) {
            throw new ModelLoadException("cannot read " + file + ": " + ModelFiles.reason(e), e);
        }
        if (root == null || root.isMissingNode()) {
            throw new ModelLoadException(file.getFileName() + " (" + file + ") is empty");
        }
        return parse(file, JsonFields.root(file, root));
    }

    private static BundleConfig parse(Path file, JsonFields root) {
        int sequenceLength = root.requiredPositiveInt("text_seq_len", MAX_TEXT_SEQ_LEN);
        int contextDim = root.requiredPositiveInt("context_dim", MAX_CONTEXT_DIM);
        if ((long) sequenceLength * contextDim > MAX_CONTEXT_VALUES) {
            throw root.fieldError(
                    "context_dim",
                    "times text_seq_len must be at most " + MAX_CONTEXT_VALUES + " values, got " + contextDim + " x "
                            + sequenceLength);
        }
        TextSettings text = new TextSettings(
                sequenceLength,
                contextDim,
                root.optionalNonNegativeFloat("context_clip").orElse(0f),
                root.optionalBoolean("zero_padded_context").orElse(false),
                root.optionalString("tokenizer_dir")
                        .map(d -> relativeName(root, "tokenizer_dir", d))
                        .orElse(DEFAULT_TOKENIZER_DIR));
        checkFixed(root, "latent_channels", LatentGrid.CHANNELS);
        checkFixed(root, "latent_downsample", LATENT_DOWNSAMPLE);
        ModelDefaults defaults = defaults(root);
        Map<String, ModelEntry> models = models(root.requiredObject("models"), root.optionalStringList(STAGE_KEYS));
        for (String key : List.of(GraphKeys.TEXT_ENCODER, GraphKeys.TRANSFORMER)) {
            requireModel(root, models, key);
        }
        DecoderLayout decoder = decoderLayout(root, models);
        return new BundleConfig(
                file.toAbsolutePath().getParent(),
                Optional.of(file),
                defaults,
                text,
                models,
                decoder,
                root.optionalBoolean("supports_img2img"));
    }

    /**
     * The unified decoder wins when present (it needs no split keys); otherwise the split chain must be complete.
     * A stage list naming only some keys that exist is ambiguous (which stage is missing cannot be guessed), so it
     * is an error rather than a silently shorter chain.
     */
    private static DecoderLayout decoderLayout(JsonFields root, Map<String, ModelEntry> models) {
        if (models.containsKey(GraphKeys.VAE_DECODER)) {
            return DecoderLayout.single();
        }
        List<String> missing = new ArrayList<>();
        for (String key : List.of(GraphKeys.VAE_DECODER_PRE, GraphKeys.VAE_DECODER_ATTN_CHUNK)) {
            if (!models.containsKey(key)) {
                missing.add("models." + key);
            }
        }
        List<String> listed = root.optionalStringList(STAGE_KEYS);
        List<String> absent =
                listed.stream().filter(k -> !models.containsKey(k)).toList();
        List<String> postKeys = List.of();
        if (!listed.isEmpty() && absent.size() < listed.size()) {
            if (!absent.isEmpty()) {
                throw root.fieldError(
                        STAGE_KEYS, "lists " + absent + ", which models does not have; models has " + models.keySet());
            }
            postKeys = listed;
        } else if (models.containsKey(GraphKeys.VAE_DECODER_POST)) {
            postKeys = List.of(GraphKeys.VAE_DECODER_POST);
        } else {
            missing.add(
                    listed.isEmpty()
                            ? "the post-attention graphs (" + STAGE_KEYS + " or models." + GraphKeys.VAE_DECODER_POST
                                    + ")"
                            : "the post stages " + listed + " listed in " + STAGE_KEYS + " (or models."
                                    + GraphKeys.VAE_DECODER_POST + ")");
        }
        if (!missing.isEmpty()) {
            throw root.error("no complete VAE decoder: there is no models." + GraphKeys.VAE_DECODER
                    + " (single graph) and the split decoder lacks " + String.join(", ", missing) + "; models has "
                    + models.keySet());
        }
        return DecoderLayout.split(postKeys);
    }

    private static void requireModel(JsonFields root, Map<String, ModelEntry> models, String key) {
        if (!models.containsKey(key)) {
            throw root.fieldError("models." + key, "is missing (it is required); models has " + models.keySet());
        }
    }

    private static void checkFixed(JsonFields root, String name, int expected) {
        if (root.has(name)) {
            int value = root.requiredPositiveInt(name);
            if (value != expected) {
                throw root.fieldError(name, "must be " + expected + " for FLUX.2 [klein], got " + value);
            }
        }
    }

    private static ModelDefaults defaults(JsonFields root) {
        String name = root.optionalString("model_name").orElse(KleinDefaults.CONFIG_MODEL_NAME);
        String variant = root.optionalString("model_variant").orElse(name);
        boolean distilled = root.optionalBoolean("is_distilled")
                .orElse(!(variant.toLowerCase(Locale.ROOT).contains("base")
                        || name.toLowerCase(Locale.ROOT).contains("base")));
        int steps = root.optionalPositiveInt("num_steps", MAX_STEPS).orElse(distilled ? 4 : 50);
        double guidance = root.optionalNonNegativeDouble("guidance").orElse(distilled ? 1.0 : 4.0);
        int width = size(root, "default_width");
        int height = size(root, "default_height");
        return new ModelDefaults(name, variant, distilled, steps, guidance, width, height);
    }

    private static int size(JsonFields root, String field) {
        int value = root.optionalPositiveInt(field, MAX_DEFAULT_SIDE).orElse(KleinDefaults.SIZE);
        if (value % LATENT_DOWNSAMPLE != 0) {
            throw root.fieldError(field, "must be a multiple of 16, got " + value);
        }
        return value;
    }

    /**
     * Entries the backend may use are parsed strictly; any other entry (a custom runtime's weights, notes) is kept
     * only if it parses, and otherwise skipped, because its fields are not this backend's business.
     */
    private static Map<String, ModelEntry> models(JsonFields models, List<String> stageKeys) {
        Map<String, ModelEntry> entries = new LinkedHashMap<>();
        for (String key : models.fieldNames()) {
            try {
                entries.put(key, entry(key, models.requiredObject(key)));
            } catch (ModelLoadException e) {
                if (KNOWN_KEYS.contains(key) || stageKeys.contains(key)) {
                    throw e;
                }
                LOG.debug(
                        "ignoring models.{}, which this backend does not use and cannot parse: {}",
                        key,
                        e.getMessage());
            }
        }
        return entries;
    }

    private static ModelEntry entry(String key, JsonFields e) {
        String file = relativeName(e, "file", e.requiredString("file"));
        Optional<String> manifest = e.optionalString("manifest").map(m -> relativeName(e, "manifest", m));
        TensorNames names = new TensorNames(
                e.optionalStringList("inputs"),
                e.optionalStringList("outputs"),
                e.optionalString("residual_input"),
                e.optionalString("attn_input"));
        // Without a manifest the shard sizes cannot be matched to files here; the graph's own external-data
        // references are checked instead (ExternalDataCheck), which is what ONNX Runtime actually reads.
        Optional<ShardInfo> shards = e.optionalObject("shards").map(BundleConfigReader::shards);
        GraphSettings settings = new GraphSettings(
                e.optionalString("activation_dtype"),
                e.optionalPositiveInt("chunk_size", MAX_CHUNK_SIZE),
                e.optionalPositiveInt("head_dim", MAX_HEAD_DIM),
                e.optionalPositiveInt("fused_steps", MAX_STEPS),
                optimizationLevel(e));
        return new ModelEntry(key, file, manifest, names, shards, settings);
    }

    private static Optional<OptimizationLevel> optimizationLevel(JsonFields e) {
        Optional<String> name = e.optionalString("graph_optimization_level");
        try {
            return name.map(OptimizationLevel::parse);
        } catch (IllegalArgumentException ex) {
            throw e.fieldError("graph_optimization_level", ex.getMessage());
        }
    }

    private static ShardInfo shards(JsonFields s) {
        long count = s.optionalNonNegativeLong("count");
        if (count > Integer.MAX_VALUE) {
            throw s.fieldError("count", "is implausibly large: " + count);
        }
        return new ShardInfo(
                (int) Math.max(count, 0),
                Math.max(s.optionalNonNegativeLong("total_bytes"), 0),
                Math.max(s.optionalNonNegativeLong("largest_bytes"), 0),
                s.optionalNonNegativeLong("onnx_bytes"));
    }

    /** Names must stay inside the bundle folder: ONNX Runtime refuses external data that escapes it anyway. */
    private static String relativeName(JsonFields e, String field, String name) {
        List<String> parts = new ArrayList<>(List.of(name.replace('\\', '/').split("/")));
        if (name.startsWith("/") || name.contains(":") || parts.contains("..")) {
            throw e.fieldError(field, "must be a file name inside the bundle folder, got \"" + name + "\"");
        }
        return name;
    }
}
