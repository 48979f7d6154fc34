package dev.flux2.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The fields of {@code POST /v1/images/generations} and {@code /v1/images/edits}, read strictly from a JSON object
 * (multipart text fields are converted to it first, see {@link Multipart}). OpenAI's fields; {@code quality},
 * {@code style}, {@code background}, {@code moderation}, {@code user} and {@code input_fidelity} are accepted and
 * ignored; the extensions are {@code seed}, {@code steps} (alias {@code num_inference_steps}),
 * {@code guidance_scale}, {@code negative_prompt} and, for edits, {@code strength}. OpenAI's streaming fields,
 * {@code stream} and {@code partial_images}, are parsed here like any other; whether the server can stream is the
 * handler's decision.
 *
 * @param prompt the prompt (required)
 * @param n images to generate (default 1)
 * @param width the width from {@code size}, or null for the model's default
 * @param height the height from {@code size}, or null
 * @param responseFormat {@code b64_json} (default) or {@code url}
 * @param outputFormat {@code png} (default) or {@code jpeg}
 * @param outputCompression JPEG quality 0..100 (default 90), ignored for PNG
 * @param model the requested model name, or null
 * @param seed the seed, or null for a random one
 * @param steps denoising steps, or null for the model's default
 * @param guidance the guidance scale, or null
 * @param negativePrompt the negative prompt, or null
 * @param strength the img2img strength (edits), or null for multi-reference editing
 * @param stepsField the field that gave {@code steps} ({@code steps} or {@code num_inference_steps}), for errors
 * @param stream whether the answer is to be streamed as server-sent events (OpenAI's {@code stream}, default false)
 * @param partialImages partial images to stream before the final one, 0..{@value #MAX_PARTIAL_IMAGES} (OpenAI's
 *     {@code partial_images}, default 0)
 * @param quality OpenAI's {@code quality} as sent (default {@code auto}): ignored, echoed in streamed events
 * @param background OpenAI's {@code background} as sent (default {@code auto}): ignored, echoed in streamed events
 */
record OpenAiImageRequest(
        String prompt,
        int n,
        Integer width,
        Integer height,
        String responseFormat,
        String outputFormat,
        int outputCompression,
        String model,
        Long seed,
        Integer steps,
        Double guidance,
        String negativePrompt,
        Double strength,
        String stepsField,
        boolean stream,
        int partialImages,
        String quality,
        String background) {

    static final int MAX_N = 10;
    /** OpenAI's largest {@code partial_images}. */
    static final int MAX_PARTIAL_IMAGES = 3;

    private static final Set<String> COMMON = Set.of(
            "prompt",
            "n",
            "size",
            "response_format",
            "output_format",
            "output_compression",
            "model",
            "quality",
            "style",
            "background",
            "moderation",
            "user",
            "seed",
            "steps",
            "num_inference_steps",
            "guidance_scale",
            "negative_prompt",
            "stream",
            "partial_images");
    private static final Set<String> EDIT_ONLY =
            Set.of("image", "image[]", "images", "mask", "strength", "input_fidelity");
    /** The fields that are numbers: multipart sends them as text. */
    static final Set<String> NUMERIC = Set.of(
            "n",
            "output_compression",
            "seed",
            "steps",
            "num_inference_steps",
            "guidance_scale",
            "strength",
            "partial_images");
    /** The fields that are booleans: multipart sends them as text ({@code true} or {@code false}). */
    static final Set<String> BOOLEAN = Set.of("stream");

    /**
     * @param root the body
     * @param edit whether it is an edit (allows the image fields and {@code strength})
     * @return the request
     * @throws ApiError (400) naming the field
     */
    static OpenAiImageRequest parse(ObjectNode root, boolean edit) throws ApiError {
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> names = root.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!COMMON.contains(name) && !(edit && EDIT_ONLY.contains(name))) {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty()) {
            Set<String> known = new TreeSet<>(COMMON);
            if (edit) {
                known.addAll(EDIT_ONLY);
            }
            throw ApiError.invalid(unknown.get(0), "unknown field(s) " + unknown + "; the fields are " + known);
        }
        String prompt = string(root, "prompt");
        if (prompt == null) {
            throw new ApiError(400, "'prompt' is required", "prompt", "missing_required_parameter");
        }
        Utf8.checkText(prompt, "prompt");
        int n = integer(root, "n", 1);
        if (n < 1 || n > MAX_N) {
            throw ApiError.invalid("n", "'n' must be in 1.." + MAX_N + ", got " + n);
        }
        Integer width = null;
        Integer height = null;
        String size = string(root, "size");
        if (size != null && !size.equals("auto")) {
            String[] parts = size.toLowerCase(Locale.ROOT).split("x", -1);
            if (parts.length != 2 || !parts[0].matches("\\d{1,5}") || !parts[1].matches("\\d{1,5}")) {
                throw ApiError.invalid(
                        "size", "'size' must be WIDTHxHEIGHT like 1024x1024 or 'auto', got '" + shortened(size) + "'");
            }
            width = Integer.valueOf(parts[0]);
            height = Integer.valueOf(parts[1]);
        }
        String responseFormat = oneOf(root, "response_format", "b64_json", Set.of("b64_json", "url"));
        String outputFormat = string(root, "output_format");
        if (outputFormat == null) {
            outputFormat = "png";
        } else if (outputFormat.equals("webp")) {
            throw ApiError.invalid(
                    "output_format",
                    "'output_format' webp is not supported by this server (the JDK has no WebP"
                            + " encoder); use png or jpeg");
        } else if (!outputFormat.equals("png") && !outputFormat.equals("jpeg")) {
            throw ApiError.invalid(
                    "output_format", "'output_format' must be png or jpeg, got '" + shortened(outputFormat) + "'");
        }
        int compression = integer(root, "output_compression", 90);
        if (compression < 0 || compression > 100) {
            throw ApiError.invalid("output_compression", "'output_compression' must be in 0..100, got " + compression);
        }
        JsonNode steps = field(root, "steps");
        JsonNode alias = field(root, "num_inference_steps");
        if (steps != null && alias != null) {
            throw ApiError.invalid("steps", "give 'steps' or 'num_inference_steps', not both");
        }
        Integer stepCount = steps != null
                ? (Integer) integer(root, "steps", 0)
                : alias != null ? (Integer) integer(root, "num_inference_steps", 0) : null;
        String negative = string(root, "negative_prompt");
        if (negative != null) {
            Utf8.checkText(negative, "negative_prompt");
        }
        boolean stream = bool(root, "stream", false);
        int partialImages = integer(root, "partial_images", 0);
        if (partialImages < 0 || partialImages > MAX_PARTIAL_IMAGES) {
            throw ApiError.invalid(
                    "partial_images",
                    "'partial_images' must be in 0.." + MAX_PARTIAL_IMAGES + ", got " + partialImages);
        }
        for (String ignored : List.of("quality", "style", "background", "moderation", "user", "input_fidelity")) {
            JsonNode v = field(root, ignored);
            if (v != null && !v.isTextual()) {
                throw wrongType(ignored, "a string", v);
            }
        }
        return new OpenAiImageRequest(
                prompt,
                n,
                width,
                height,
                responseFormat,
                outputFormat,
                compression,
                string(root, "model"),
                longInteger(root, "seed"),
                stepCount,
                number(root, "guidance_scale"),
                negative,
                edit ? number(root, "strength") : null,
                alias != null ? "num_inference_steps" : "steps",
                stream,
                partialImages,
                echoed(root, "quality"),
                echoed(root, "background"));
    }

    /** An ignored string field, echoed in streamed events: as sent (cut to 64 characters), or {@code auto}. */
    private static String echoed(JsonNode root, String name) {
        JsonNode v = root.get(name);
        return v == null || v.isNull() ? "auto" : shortened(v.asText());
    }

    private static JsonNode field(JsonNode root, String name) {
        JsonNode v = root.get(name);
        return v == null || v.isNull() ? null : v;
    }

    static String string(JsonNode root, String name) throws ApiError {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            throw wrongType(name, "a string", v);
        }
        return v.textValue();
    }

    private static String oneOf(JsonNode root, String name, String fallback, Set<String> allowed) throws ApiError {
        String v = string(root, name);
        if (v == null) {
            return fallback;
        }
        if (!allowed.contains(v)) {
            throw ApiError.invalid(
                    name, "'" + name + "' must be one of " + new TreeSet<>(allowed) + ", got '" + shortened(v) + "'");
        }
        return v;
    }

    private static int integer(JsonNode root, String name, int fallback) throws ApiError {
        JsonNode v = field(root, name);
        if (v == null) {
            return fallback;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw wrongType(name, "an integer (32-bit)", v);
        }
        return v.intValue();
    }

    private static boolean bool(JsonNode root, String name, boolean fallback) throws ApiError {
        JsonNode v = field(root, name);
        if (v == null) {
            return fallback;
        }
        if (!v.isBoolean()) {
            throw wrongType(name, "a boolean (true or false)", v);
        }
        return v.booleanValue();
    }

    private static Long longInteger(JsonNode root, String name) throws ApiError {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw wrongType(name, "an integer (64-bit)", v);
        }
        return v.longValue();
    }

    private static Double number(JsonNode root, String name) throws ApiError {
        JsonNode v = field(root, name);
        if (v == null) {
            return null;
        }
        if (!v.isNumber()) {
            throw wrongType(name, "a number", v);
        }
        return v.doubleValue();
    }

    static ApiError wrongType(String name, String expected, JsonNode value) {
        return ApiError.invalid(name, "'" + name + "' must be " + expected + ", got " + shortened(value.toString()));
    }

    static String shortened(String text) {
        return text.length() > 40 ? text.substring(0, 37) + "..." : text;
    }
}
