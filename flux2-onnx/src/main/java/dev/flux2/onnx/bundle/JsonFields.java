package dev.flux2.onnx.bundle;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.api.ModelLoadException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Typed access to the fields of one JSON object, with errors that name the file and the field's full path
 * (for example {@code models.transformer.file}). Unknown fields are simply never looked at.
 */
final class JsonFields {
    private final Path file;
    private final String path;
    private final JsonNode node;

    private JsonFields(Path file, String path, JsonNode node) {
        this.file = file;
        this.path = path;
        this.node = node;
    }

    /**
     * @param file the JSON file, for messages
     * @param root its root node
     * @return accessor of the root object
     */
    static JsonFields root(Path file, JsonNode root) {
        JsonFields fields = new JsonFields(file, "", root);
        if (!root.isObject()) {
            throw fields.error("the top level must be a JSON object, got " + describe(root));
        }
        return fields;
    }

    /** @param name a field holding an object @return its accessor */
    JsonFields requiredObject(String name) {
        JsonNode value = require(name);
        if (!value.isObject()) {
            throw invalid(name, "a JSON object", value);
        }
        return new JsonFields(file, qualified(name), value);
    }

    /** @return the names of this object's fields, in file order */
    List<String> fieldNames() {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** @param name a field @return whether it is present and not null */
    boolean has(String name) {
        JsonNode value = node.get(name);
        return value != null && !value.isNull();
    }

    /** @param name a non-empty string field @return its value */
    String requiredString(String name) {
        return string(name, require(name));
    }

    /** @param name an optional string field @return its value */
    Optional<String> optionalString(String name) {
        return has(name) ? Optional.of(string(name, node.get(name))) : Optional.empty();
    }

    /** @param name a positive integer field @return its value */
    int requiredPositiveInt(String name) {
        return positiveInt(name, require(name));
    }

    /** @param name an optional positive integer field @return its value */
    OptionalInt optionalPositiveInt(String name) {
        return has(name) ? OptionalInt.of(positiveInt(name, node.get(name))) : OptionalInt.empty();
    }

    /**
     * @param name a positive integer field with an upper bound
     * @param max the largest value accepted
     * @return its value
     */
    int requiredPositiveInt(String name, int max) {
        return atMost(name, requiredPositiveInt(name), max);
    }

    /**
     * @param name an optional positive integer field with an upper bound
     * @param max the largest value accepted
     * @return its value
     */
    OptionalInt optionalPositiveInt(String name, int max) {
        OptionalInt value = optionalPositiveInt(name);
        if (value.isPresent()) {
            atMost(name, value.getAsInt(), max);
        }
        return value;
    }

    private int atMost(String name, int value, int max) {
        if (value > max) {
            throw fieldError(
                    name,
                    "must be at most " + max + " (a larger value is no FLUX.2 [klein] bundle and would exhaust"
                            + " memory), got " + value);
        }
        return value;
    }

    /** @param name an optional non-negative integer field @return its value, or -1 when absent */
    long optionalNonNegativeLong(String name) {
        if (!has(name)) {
            return -1;
        }
        JsonNode value = node.get(name);
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
            throw invalid(name, "a non-negative integer", value);
        }
        return value.longValue();
    }

    /** @param name an optional finite, non-negative number field @return its value */
    Optional<Double> optionalNonNegativeDouble(String name) {
        return optionalNonNegativeNumber(name).map(JsonNode::doubleValue);
    }

    /** @param name an optional finite, non-negative number field @return its value as float32 */
    Optional<Float> optionalNonNegativeFloat(String name) {
        return optionalNonNegativeNumber(name).map(JsonNode::floatValue);
    }

    private Optional<JsonNode> optionalNonNegativeNumber(String name) {
        if (!has(name)) {
            return Optional.empty();
        }
        JsonNode value = node.get(name);
        if (!value.isNumber() || !Double.isFinite(value.doubleValue()) || value.doubleValue() < 0) {
            throw invalid(name, "a finite number >= 0", value);
        }
        return Optional.of(value);
    }

    /** @param name an optional boolean field @return its value */
    Optional<Boolean> optionalBoolean(String name) {
        if (!has(name)) {
            return Optional.empty();
        }
        JsonNode value = node.get(name);
        if (!value.isBoolean()) {
            throw invalid(name, "true or false", value);
        }
        return Optional.of(value.booleanValue());
    }

    /** @param name an optional array-of-strings field @return its values (empty when absent) */
    List<String> optionalStringList(String name) {
        return has(name) ? stringList(name, node.get(name)) : List.of();
    }

    /** @param name an optional object field @return its accessor */
    Optional<JsonFields> optionalObject(String name) {
        if (!has(name)) {
            return Optional.empty();
        }
        JsonNode value = node.get(name);
        if (!value.isObject()) {
            throw invalid(name, "a JSON object", value);
        }
        return Optional.of(new JsonFields(file, qualified(name), value));
    }

    /**
     * @param name the offending field
     * @param message what is wrong
     * @return an exception naming the file and the field
     */
    ModelLoadException fieldError(String name, String message) {
        return error("field '" + qualified(name) + "' " + message);
    }

    /** @param message what is wrong @return an exception naming the file */
    ModelLoadException error(String message) {
        return new ModelLoadException(file.getFileName() + " (" + file + "): " + message);
    }

    private JsonNode require(String name) {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            throw fieldError(name, "is missing (it is required)");
        }
        return value;
    }

    private String string(String name, JsonNode value) {
        if (!value.isTextual() || value.textValue().isBlank()) {
            throw invalid(name, "a non-empty string", value);
        }
        return value.textValue();
    }

    private int positiveInt(String name, JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1) {
            throw invalid(name, "a positive integer", value);
        }
        return value.intValue();
    }

    private List<String> stringList(String name, JsonNode value) {
        if (!value.isArray()) {
            throw invalid(name, "an array of strings", value);
        }
        List<String> values = new ArrayList<>();
        for (JsonNode element : value) {
            if (!element.isTextual() || element.textValue().isEmpty()) {
                throw invalid(name, "an array of non-empty strings", value);
            }
            values.add(element.textValue());
        }
        return values;
    }

    private ModelLoadException invalid(String name, String expected, JsonNode value) {
        return fieldError(name, "must be " + expected + ", got " + describe(value));
    }

    private String qualified(String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private static String describe(JsonNode value) {
        String text = value.toString();
        return text.length() > 80 ? text.substring(0, 77) + "..." : text;
    }
}
