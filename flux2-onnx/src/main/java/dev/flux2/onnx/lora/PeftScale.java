package dev.flux2.onnx.lora;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The per-layer scale alpha / r of a PEFT LoRA config, as diffusers builds it for {@code load_lora_adapter}: from the
 * safetensors metadata key {@code lora_adapter_metadata} (a JSON object whose {@code transformer.}-prefixed keys
 * diffusers' {@code _save_lora_weights} wrote: {@code r}, {@code lora_alpha}, {@code rank_pattern},
 * {@code alpha_pattern}, {@code use_rslora}; src/diffusers/loaders/peft.py @58eb52c lines 191–197 and
 * utils/peft_utils.py {@code _create_lora_config}) when present; without it every layer gets alpha = its rank, scale
 * 1 ({@code get_peft_kwargs}, the "no alpha data" branch). Patterns match as PEFT's {@code get_pattern_key} does: a
 * key beginning with {@code ^} as a regular expression from the module path's start, any other as a dotted suffix.
 */
final class PeftScale {
    static final String METADATA_KEY = "lora_adapter_metadata";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Integer r;
    private final Double alpha;
    private final Map<String, Double> rankPattern;
    private final Map<String, Double> alphaPattern;
    private final boolean rsLora;

    private PeftScale(
            Integer r,
            Double alpha,
            Map<String, Double> rankPattern,
            Map<String, Double> alphaPattern,
            boolean rsLora) {
        this.r = r;
        this.alpha = alpha;
        this.rankPattern = rankPattern;
        this.alphaPattern = alphaPattern;
        this.rsLora = rsLora;
    }

    /** @return the rule of a file without metadata: scale 1 on every layer */
    static PeftScale none() {
        return new PeftScale(null, null, Map.of(), Map.of(), false);
    }

    static PeftScale fromMetadata(Path file, Map<String, String> metadata) {
        String raw = metadata.get(METADATA_KEY);
        if (raw == null || raw.isBlank()) {
            return none();
        }
        JsonNode root;
        try {
            root = JSON.readTree(raw);
        } catch (IOException e) {
            throw new InvalidRequestException(
                    "LoRA file " + file + ": metadata " + METADATA_KEY + " is not valid JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new InvalidRequestException("LoRA file " + file + ": metadata " + METADATA_KEY + " is not an object");
        }
        Map<String, JsonNode> config = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().startsWith("transformer.")) {
                config.put(e.getKey().substring("transformer.".length()), e.getValue());
            }
        }
        if (config.isEmpty()) {
            return none();
        }
        JsonNode rNode = config.get("r");
        JsonNode alphaNode = config.get("lora_alpha");
        Integer r = rNode != null && rNode.isNumber() ? rNode.asInt() : 8; // PEFT's LoraConfig defaults
        Double alpha = alphaNode != null && alphaNode.isNumber() ? alphaNode.asDouble() : 8.0;
        if (r <= 0) {
            throw new InvalidRequestException("LoRA file " + file + ": metadata r = " + r + "; expected a rank >= 1");
        }
        JsonNode rs = config.get("use_rslora");
        return new PeftScale(
                r,
                alpha,
                pattern(file, config.get("rank_pattern")),
                pattern(file, config.get("alpha_pattern")),
                rs != null && rs.asBoolean(false));
    }

    private static Map<String, Double> pattern(Path file, JsonNode node) {
        Map<String, Double> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isObject()) {
            throw new InvalidRequestException("LoRA file " + file + ": a metadata pattern is not an object: " + node);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isNumber()) {
                throw new InvalidRequestException("LoRA file " + file + ": metadata pattern '" + e.getKey()
                        + "' has value " + e.getValue() + "; expected a number");
            }
            try {
                Pattern.compile(e.getKey());
            } catch (PatternSyntaxException ex) {
                throw new InvalidRequestException(
                        "LoRA file " + file + ": metadata pattern '" + e.getKey() + "' is not a regular expression");
            }
            out.put(e.getKey(), e.getValue().asDouble());
        }
        return out;
    }

    /**
     * @param module the layer's module path (no {@code transformer.} prefix)
     * @param tensorRank the rank of its factors in the file
     * @return alpha / r for that layer (alpha / √r with rsLoRA)
     * @throws InvalidRequestException when the config's rank for the layer differs from its factors' rank, which
     *     PEFT refuses when it loads the weights
     */
    double of(String module, int tensorRank) {
        if (r == null) {
            return 1.0;
        }
        double rank = match(rankPattern, module, r);
        double a = match(alphaPattern, module, alpha);
        if (rank != tensorRank) {
            throw new InvalidRequestException("LoRA layer " + module + ": the file's metadata gives rank " + (long) rank
                    + " but its factors have rank " + tensorRank);
        }
        return rsLora ? a / Math.sqrt(rank) : a / rank;
    }

    private static double match(Map<String, Double> pattern, String module, double fallback) {
        for (Map.Entry<String, Double> e : pattern.entrySet()) {
            String key = e.getKey();
            boolean hit = key.startsWith("^")
                    ? Pattern.compile(key).matcher(module).lookingAt()
                    : Pattern.compile("(.*\\.)?(" + key + ")$").matcher(module).matches();
            if (hit) {
                return e.getValue();
            }
        }
        return fallback;
    }
}
