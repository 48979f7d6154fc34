package dev.flux2.onnx.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads {@code flux2-config.json} into a {@link BundleConfig}. Unknown fields are ignored (the config also carries
 * exporter notes); a missing or invalid required field is a {@link ModelLoadException} naming the file and the
 * field's path.
 *
 * <p>Required: {@code text_seq_len}, {@code context_dim}, {@code tokenizer_dir}, {@code models} with
 * {@code text_encoder}, {@code transformer}, {@code vae_decoder_pre}, {@code vae_decoder_attn_chunk} and every key
 * of {@code vae_decoder_post_stage_keys} (required too), each with a {@code file}. Everything else is optional
 * with the defaults documented on {@link ModelDefaults}. Stateless and thread-safe.
 */
public final class BundleConfigReader {
    /** The config's file name inside a bundle folder. */
    public static final String FILE_NAME = "flux2-config.json";

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);
    private static final int LATENT_CHANNELS = 128;
    private static final int LATENT_DOWNSAMPLE = 16;

    private BundleConfigReader() {
    }

    /**
     * @param file the config file
     * @return the parsed, checked config
     * @throws ModelLoadException when the file is missing, not JSON, or a required field is missing or invalid
     */
    public static BundleConfig read(Path file) {
        JsonNode root;
        try {
            root = MAPPER.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            throw new ModelLoadException(FILE_NAME + " not found: " + file + " (is this an ONNX bundle folder?)", e);
        } catch (JsonProcessingException e) {
            throw new ModelLoadException(file.getFileName() + " (" + file + ") is not valid JSON: "
                    + e.getOriginalMessage() + " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr(), e);
        } catch (IOException e) {
            throw new ModelLoadException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (root == null || root.isMissingNode()) {
            throw new ModelLoadException(file.getFileName() + " (" + file + ") is empty");
        }
        return parse(file, JsonFields.root(file, root));
    }

    private static BundleConfig parse(Path file, JsonFields root) {
        TextSettings text = new TextSettings(
                root.requiredPositiveInt("text_seq_len"),
                root.requiredPositiveInt("context_dim"),
                root.optionalNonNegativeFloat("context_clip").orElse(0f),
                root.optionalBoolean("zero_padded_context").orElse(false),
                root.requiredString("tokenizer_dir"));
        checkFixed(root, "latent_channels", LATENT_CHANNELS);
        checkFixed(root, "latent_downsample", LATENT_DOWNSAMPLE);
        ModelDefaults defaults = defaults(root);
        Map<String, ModelEntry> models = models(root.requiredObject("models"));
        if (models.containsKey("vae_decoder") && !models.containsKey(GraphKeys.VAE_DECODER_PRE)) {
            throw root.fieldError("models.vae_decoder", "is a single-graph VAE decoder, which this backend does not "
                    + "run; it needs the split decoder (models.vae_decoder_pre, models.vae_decoder_attn_chunk and "
                    + "the stages listed in vae_decoder_post_stage_keys)");
        }
        List<String> postKeys = root.requiredStringList("vae_decoder_post_stage_keys");
        for (String key : List.of(GraphKeys.TEXT_ENCODER, GraphKeys.TRANSFORMER, GraphKeys.VAE_DECODER_PRE,
                GraphKeys.VAE_DECODER_ATTN_CHUNK)) {
            requireModel(root, models, key, "");
        }
        for (String key : postKeys) {
            requireModel(root, models, key, " (listed in vae_decoder_post_stage_keys)");
        }
        return new BundleConfig(file, defaults, text, models, postKeys, root.optionalBoolean("supports_img2img"));
    }

    private static void requireModel(JsonFields root, Map<String, ModelEntry> models, String key, String why) {
        if (!models.containsKey(key)) {
            throw root.fieldError("models." + key, "is missing (it is required" + why + "); models has "
                    + models.keySet());
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
        String name = root.optionalString("model_name").orElse("flux.2-klein");
        String variant = root.optionalString("model_variant").orElse(name);
        boolean distilled = root.optionalBoolean("is_distilled")
                .orElse(!(variant.toLowerCase(Locale.ROOT).contains("base")
                        || name.toLowerCase(Locale.ROOT).contains("base")));
        int steps = root.optionalPositiveInt("num_steps").orElse(distilled ? 4 : 50);
        float guidance = root.optionalNonNegativeFloat("guidance").orElse(distilled ? 1.0f : 4.0f);
        int width = size(root, "default_width");
        int height = size(root, "default_height");
        return new ModelDefaults(name, variant, distilled, steps, guidance, width, height);
    }

    private static int size(JsonFields root, String field) {
        int value = root.optionalPositiveInt(field).orElse(1024);
        if (value % LATENT_DOWNSAMPLE != 0) {
            throw root.fieldError(field, "must be a multiple of 16, got " + value);
        }
        return value;
    }

    private static Map<String, ModelEntry> models(JsonFields models) {
        Map<String, ModelEntry> entries = new LinkedHashMap<>();
        for (String key : models.fieldNames()) {
            entries.put(key, entry(key, models.requiredObject(key)));
        }
        return entries;
    }

    private static ModelEntry entry(String key, JsonFields e) {
        String file = relativeName(e, "file", e.requiredString("file"));
        Optional<String> manifest = e.optionalString("manifest").map(m -> relativeName(e, "manifest", m));
        TensorNames names = new TensorNames(e.optionalStringList("inputs"), e.optionalStringList("outputs"),
                e.optionalString("residual_input"), e.optionalString("attn_input"));
        Optional<ShardInfo> shards = e.optionalObject("shards").map(BundleConfigReader::shards);
        if (shards.isPresent() && shards.get().count() > 0 && manifest.isEmpty()) {
            throw e.fieldError("manifest", "is missing but shards.count is " + shards.get().count()
                    + " (the manifest lists the shard files)");
        }
        GraphSettings settings = new GraphSettings(e.optionalString("activation_dtype"),
                e.optionalPositiveInt("chunk_size"), e.optionalPositiveInt("head_dim"),
                e.optionalPositiveInt("fused_steps"), e.optionalString("graph_optimization_level"));
        return new ModelEntry(key, file, manifest, names, shards, settings);
    }

    private static ShardInfo shards(JsonFields s) {
        long count = s.optionalNonNegativeLong("count");
        if (count > Integer.MAX_VALUE) {
            throw s.fieldError("count", "is implausibly large: " + count);
        }
        return new ShardInfo((int) Math.max(count, 0), Math.max(s.optionalNonNegativeLong("total_bytes"), 0),
                Math.max(s.optionalNonNegativeLong("largest_bytes"), 0), s.optionalNonNegativeLong("onnx_bytes"));
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
