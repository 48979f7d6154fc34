package dev.flux2.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The text fields of a multipart edit as a JSON object, so that one parser ({@link OpenAiImageRequest}) reads both
 * forms: numbers and booleans arrive as text and are read as one whole JSON value each ({@code "2 3"} is refused,
 * not read as 2); a field given twice is refused naming it. The image fields are {@link ImageUploads}'.
 */
final class MultipartFields {
    private static final ObjectMapper WHOLE_VALUE = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private MultipartFields() {}

    /**
     * @param parts the parts of the body
     * @return the text fields, numbers and booleans converted
     * @throws ApiError (400) naming the field: given twice, invalid UTF-8, not a number or boolean
     */
    static ObjectNode of(List<Multipart.Part> parts) throws ApiError {
        ObjectNode root = HttpExchanges.JSON.createObjectNode();
        for (Multipart.Part p : parts) {
            String name = p.name();
            if (p.isFile() || ImageUploads.FIELDS.contains(name)) {
                continue; // files, and the image fields' text parts (refused by ImageUploads, naming the field)
            }
            Utf8.check(p.body(), "the multipart field '" + name + "'");
            if (root.has(name)) {
                throw ApiError.invalid(name, "the multipart field '" + name + "' is given twice; it takes one value");
            }
            String text = p.text();
            if (OpenAiImageRequest.NUMERIC.contains(name)) {
                JsonNode number = whole(text);
                if (number == null || !number.isNumber()) {
                    throw ApiError.invalid(
                            name,
                            "the multipart field '" + name + "' must be one number, got '"
                                    + OpenAiImageRequest.shortened(text) + "'");
                }
                root.set(name, number);
            } else if (OpenAiImageRequest.BOOLEAN.contains(name)) {
                JsonNode bool = whole(text);
                if (bool == null || !bool.isBoolean()) {
                    throw ApiError.invalid(
                            name,
                            "the multipart field '" + name + "' must be true or false, got '"
                                    + OpenAiImageRequest.shortened(text) + "'");
                }
                root.set(name, bool);
            } else {
                root.put(name, text);
            }
        }
        return root;
    }

    /** @return the text as one JSON value (surrounding white space allowed), or null when it is not exactly one */
    private static JsonNode whole(String text) {
        try {
            JsonNode v = WHOLE_VALUE.readTree(text.strip());
            return v == null || v.isMissingNode() ? null : v;
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
