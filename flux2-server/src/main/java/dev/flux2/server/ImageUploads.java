package dev.flux2.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The images of an edit request, from multipart files ({@code image}, {@code image[]}) or JSON data URLs
 * ({@code "image": "data:image/png;base64,…"}, a list of them, or OpenAI's {@code "images": [{"image_url": …}]}).
 * The mask (OpenAI's: alpha 0 marks the area to edit) is read here too and converted in {@link dev.flux2.io.OpenAiMask}.
 *
 * @param images the image files' bytes, in order (decoded later by the core's bounded image reader)
 * @param mask the mask's bytes, or null
 */
record ImageUploads(List<byte[]> images, byte[] mask) {
    /** The multipart parts read here. */
    static final java.util.Set<String> FIELDS = java.util.Set.of("image", "image[]", "mask");

    /** From the file parts of a multipart body. */
    static ImageUploads fromParts(List<Multipart.Part> parts) throws ApiError {
        List<byte[]> images = new ArrayList<>();
        byte[] mask = null;
        for (Multipart.Part p : parts) {
            if (p.name().equals("image") || p.name().equals("image[]")) {
                if (!p.isFile()) {
                    throw ApiError.invalid(p.name(), "'" + p.name() + "' must be a file part (with a filename)");
                }
                images.add(p.body());
            } else if (p.name().equals("mask")) {
                mask = p.body();
            }
        }
        return checked(images, mask);
    }

    /** From JSON data URLs. */
    static ImageUploads fromJson(ObjectNode root) throws ApiError {
        List<byte[]> images = new ArrayList<>();
        for (String field : List.of("image", "image[]", "images")) {
            JsonNode v = root.get(field);
            if (v == null || v.isNull()) {
                continue;
            }
            if (v.isArray()) {
                for (JsonNode item : v) {
                    images.add(dataUrl(field, item));
                }
            } else {
                images.add(dataUrl(field, v));
            }
        }
        JsonNode m = root.get("mask");
        byte[] mask = m == null || m.isNull() ? null : dataUrl("mask", m);
        return checked(images, mask);
    }

    private static ImageUploads checked(List<byte[]> images, byte[] mask) throws ApiError {
        if (images.isEmpty()) {
            throw new ApiError(
                    400,
                    "'image' is required: one or more image files (multipart 'image' or 'image[]') or data URLs",
                    "image",
                    "missing_required_parameter");
        }
        return new ImageUploads(List.copyOf(images), mask);
    }

    private static byte[] dataUrl(String field, JsonNode v) throws ApiError {
        JsonNode url = v.isObject() ? v.get("image_url") : v;
        if (url == null || !url.isTextual()) {
            throw ApiError.invalid(
                    field,
                    "'" + field + "' must be a data URL string (data:image/png;base64,...) or {\"image_url\":"
                            + " ...}, got " + OpenAiImageRequest.shortened(v.toString()));
        }
        String text = url.textValue();
        int comma = text.indexOf(',');
        String head = comma < 0 ? "" : text.substring(0, comma).toLowerCase(Locale.ROOT);
        if (!head.startsWith("data:") || !head.endsWith(";base64")) {
            throw ApiError.invalid(
                    field,
                    "'" + field + "' must be a base64 data URL (data:image/png;base64,...); this server fetches"
                            + " no remote URLs, got " + OpenAiImageRequest.shortened(text));
        }
        try {
            return Base64.getMimeDecoder().decode(text.substring(comma + 1));
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(field, "'" + field + "' holds invalid base64: " + e.getMessage());
        }
    }
}
