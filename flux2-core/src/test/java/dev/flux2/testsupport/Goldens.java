package dev.flux2.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads the golden vectors of the reference implementation ({@code src/test/resources/reference/*.json}; provenance
 * in the README beside them) for tests. A missing file fails loudly: the goldens are acceptance data, never optional.
 */
public final class Goldens {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, JsonNode> CACHE = new ConcurrentHashMap<>();

    private Goldens() {}

    /**
     * Parses (once per file) a golden file.
     *
     * @param fileName a file in {@code src/test/resources/reference}, e.g. {@code schedule.json}
     * @return its JSON tree
     */
    public static JsonNode load(String fileName) {
        return CACHE.computeIfAbsent(fileName, name -> {
            String resource = "/reference/" + name;
            try (InputStream in = Goldens.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("test resource " + resource + " is missing");
                }
                return MAPPER.readTree(in);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read golden file " + resource, e);
            }
        });
    }

    /**
     * @param array a JSON array of numbers
     * @return its values as float32 (JSON holds the exact decimal of each float32 value)
     */
    public static float[] floats(JsonNode array) {
        requireArray(array);
        float[] out = new float[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (float) array.get(i).asDouble();
        }
        return out;
    }

    /**
     * @param array a JSON array of numbers
     * @return its values as doubles
     */
    public static double[] doubles(JsonNode array) {
        requireArray(array);
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    /**
     * @param array a JSON array of integers
     * @return its values as ints
     */
    public static int[] ints(JsonNode array) {
        requireArray(array);
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode v = array.get(i);
            if (!v.canConvertToExactIntegral()) {
                throw new IllegalArgumentException("element " + i + " is not an integer: " + v);
            }
            out[i] = v.asInt();
        }
        return out;
    }

    private static void requireArray(JsonNode node) {
        if (node == null || !node.isArray()) {
            throw new IllegalArgumentException("expected a JSON array, got " + node);
        }
    }
}
