package dev.flux2.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The images of an edit request, from multipart files ({@code image} once, {@code image[]} any number of times) or
 * JSON data URLs ({@code "image": "data:image/png;base64,…"}, a list of them, or OpenAI's
 * {@code "images": [{"image_url": …}]}). The mask (OpenAI's: alpha 0 marks the area to edit) is read here too and
 * converted in {@link dev.flux2.OpenAiMask}. A field that takes one file ({@code image}, {@code mask}) given twice is
 * refused naming it, never "the last wins"; base64 is decoded strictly (a character outside the alphabet is refused
 * naming the field, not skipped into bytes that then fail as an image).
 *
 * @param images the images in order (decoded later by the core's bounded image reader)
 * @param mask the mask, or null
 */
record ImageUploads(List<Upload> images, Upload mask) {
    /** The multipart parts read here. */
    static final Set<String> FIELDS = Set.of("image", "image[]", "mask");

    /**
     * One uploaded image.
     *
     * @param field the field it came in ({@code image}, {@code image[]}, {@code images}, {@code mask})
     * @param label how messages name it: {@code 'image[]' file 2}, {@code 'images' item 1}, {@code 'mask'}
     * @param bytes the encoded image
     */
    record Upload(String field, String label, byte[] bytes) {}

    /** From the file parts of a multipart body. */
    static ImageUploads fromParts(List<Multipart.Part> parts) throws ApiError {
        List<Upload> images = new ArrayList<>();
        Upload mask = null;
        int plain = 0;
        int listed = 0;
        for (Multipart.Part p : parts) {
            String name = p.name();
            if (!FIELDS.contains(name)) {
                continue;
            }
            if (!p.isFile()) {
                throw ApiError.invalid(name, "'" + name + "' must be a file part (with a filename)");
            }
            if (name.equals("mask")) {
                if (mask != null) {
                    throw twice("mask", "one mask");
                }
                mask = new Upload("mask", "'mask'", p.body());
            } else if (name.equals("image")) {
                if (++plain > 1) {
                    throw twice("image", "one image (send several as 'image[]')");
                }
                images.add(new Upload("image", "'image'", p.body()));
            } else {
                images.add(new Upload("image[]", "'image[]' file " + ++listed, p.body()));
            }
        }
        return checked(images, mask);
    }

    private static ApiError twice(String field, String expected) {
        return ApiError.invalid(field, "the multipart field '" + field + "' is given twice; it takes " + expected);
    }

    /** From JSON data URLs. */
    static ImageUploads fromJson(ObjectNode root) throws ApiError {
        List<Upload> images = new ArrayList<>();
        for (String field : List.of("image", "image[]", "images")) {
            JsonNode v = root.get(field);
            if (v == null || v.isNull()) {
                continue;
            }
            if (v.isArray()) {
                int i = 0;
                for (JsonNode item : v) {
                    String label = "'" + field + "' item " + ++i;
                    images.add(new Upload(field, label, dataUrl(field, label, item)));
                }
            } else {
                String label = "'" + field + "'";
                images.add(new Upload(field, label, dataUrl(field, label, v)));
            }
        }
        JsonNode m = root.get("mask");
        Upload mask = m == null || m.isNull() ? null : new Upload("mask", "'mask'", dataUrl("mask", "'mask'", m));
        return checked(images, mask);
    }

    private static ImageUploads checked(List<Upload> images, Upload mask) throws ApiError {
        if (images.isEmpty()) {
            throw new ApiError(
                    400,
                    "'image' is required: one or more image files (multipart 'image' or 'image[]') or data URLs",
                    "image",
                    "missing_required_parameter");
        }
        return new ImageUploads(List.copyOf(images), mask);
    }

    private static byte[] dataUrl(String field, String label, JsonNode v) throws ApiError {
        JsonNode url = v.isObject() ? v.get("image_url") : v;
        if (url == null || !url.isTextual()) {
            throw ApiError.invalid(
                    field,
                    label + " must be a data URL string (data:image/png;base64,...) or {\"image_url\":" + " ...}, got "
                            + OpenAiImageRequest.shortened(v.toString()));
        }
        String text = url.textValue();
        int comma = text.indexOf(',');
        String head = comma < 0 ? "" : text.substring(0, comma).toLowerCase(Locale.ROOT);
        if (!head.startsWith("data:") || !head.endsWith(";base64")) {
            throw ApiError.invalid(
                    field,
                    label + " must be a base64 data URL (data:image/png;base64,...); this server fetches"
                            + " no remote URLs, got " + OpenAiImageRequest.shortened(text));
        }
        // Line breaks (MIME's 76-character lines) are allowed; any other character outside the alphabet is an error.
        String base64 = text.substring(comma + 1).replaceAll("[\\r\\n \\t]", "");
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(field, label + " holds invalid base64: " + e.getMessage());
        }
    }
}
