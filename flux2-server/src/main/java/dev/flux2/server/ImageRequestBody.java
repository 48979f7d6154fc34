package dev.flux2.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The JSON body of {@code POST /v1/images}, strictly typed. Unset fields take the model's defaults; unknown or
 * duplicate fields and values of the wrong JSON type ({@code "prompt": 5}, {@code "width": "512"},
 * {@code "width": 512.5}) are refused with a message naming the field.
 *
 * <pre>{"prompt": "a red fox in the snow", "width": 512, "height": 512, "seed": 42, "steps": 4}</pre>
 *
 * {@code "size": "512x512"} may replace width and height.
 *
 * @param prompt the prompt (required, a string)
 * @param width width in pixels, an integer multiple of 16
 * @param height height in pixels, an integer multiple of 16
 * @param size {@code "WxH"}, an alternative to width and height
 * @param seed the noise seed, an integer (random when absent; reported in the {@code X-Flux2-Seed} header)
 * @param steps denoising steps, an integer
 * @param guidance guidance scale, a number (base models only)
 */
record ImageRequestBody(
        String prompt, Integer width, Integer height, String size, Long seed, Integer steps, Double guidance) {

    private static final Set<String> FIELDS = Set.of("prompt", "width", "height", "size", "seed", "steps", "guidance");
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final String EXAMPLE =
            "{\"prompt\": \"...\", \"width\": 512, \"height\": 512, \"seed\": 42, \"steps\": 4}";

    /**
     * @param json the request body
     * @return the parsed body
     * @throws InvalidRequestException naming the field and what was wrong, or the JSON error
     */
    public static ImageRequestBody parse(byte[] json) {
        JsonNode root;
        try {
            root = STRICT.readTree(json);
        } catch (JsonProcessingException e) {
            throw new InvalidRequestException(
                    "body must be a JSON object like " + EXAMPLE + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidRequestException("body cannot be read: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new InvalidRequestException("body must be a JSON object like " + EXAMPLE);
        }
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            throw new InvalidRequestException("unknown field(s) " + unknown + "; the fields are "
                    + FIELDS.stream().sorted().toList());
        }
        return new ImageRequestBody(
                string(root, "prompt"),
                integer(root, "width"),
                integer(root, "height"),
                string(root, "size"),
                longInteger(root, "seed"),
                integer(root, "steps"),
                number(root, "guidance"));
    }

    private static JsonNode field(JsonNode root, String name) {
        JsonNode v = root.get(name);
        return v == null || v.isNull() ? null : v;
    }

    private static String string(JsonNode root, String name) {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw wrongType(name, "a string", v);
        }
        return v.textValue();
    }

    private static Integer integer(JsonNode root, String name) {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw wrongType(name, "an integer (32-bit)", v);
        }
        return v.intValue();
    }

    private static Long longInteger(JsonNode root, String name) {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw wrongType(name, "an integer (64-bit)", v);
        }
        return v.longValue();
    }

    private static Double number(JsonNode root, String name) {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isNumber()) {
            throw wrongType(name, "a number", v);
        }
        return v.doubleValue();
    }

    private static InvalidRequestException wrongType(String name, String expected, JsonNode value) {
        String text = value.toString();
        return new InvalidRequestException(String.format(
                Locale.ROOT,
                "'%s' must be %s, got %s",
                name,
                expected,
                text.length() > 40 ? text.substring(0, 37) + "..." : text));
    }

    /**
     * @return a request builder with these values (validated by its {@code build()})
     * @throws InvalidRequestException when the prompt is missing or {@code size} is malformed or contradicts
     *     width/height
     */
    public GenerationRequest.Builder toRequest() {
        if (prompt == null) {
            throw new InvalidRequestException("'prompt' is required");
        }
        GenerationRequest.Builder b = GenerationRequest.builder(prompt);
        Integer w = width;
        Integer h = height;
        if (size != null) {
            String[] parts = size.trim().toLowerCase(Locale.ROOT).split("x");
            if (parts.length != 2 || !parts[0].matches("\\d{1,5}") || !parts[1].matches("\\d{1,5}")) {
                throw new InvalidRequestException("'size' must look like 512x512, got '" + size + "'");
            }
            if (width != null || height != null) {
                throw new InvalidRequestException("give either 'size' or 'width'/'height', not both");
            }
            w = Integer.valueOf(parts[0]);
            h = Integer.valueOf(parts[1]);
        }
        if (w != null) {
            b.width(w);
        }
        if (h != null) {
            b.height(h);
        }
        if (seed != null) {
            b.seed(seed);
        }
        if (steps != null) {
            b.steps(steps);
        }
        if (guidance != null) {
            b.guidance(guidance);
        }
        return b;
    }
}
