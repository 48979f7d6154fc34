package dev.flux2.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads the shared golden vectors ({@code shared/reference/*.json}) for tests.
 *
 * <p>The shared directory comes from the system property {@code flux2.shared.dir} (set by surefire); without it,
 * the nearest ancestor of the working directory that has a {@code shared/reference} child is used, which finds
 * {@code ../shared} next to the project root. A missing directory fails loudly: the goldens are acceptance data,
 * never optional.
 */
public final class Goldens {
    /** The system property naming the shared directory. */
    public static final String SHARED_DIR_PROPERTY = "flux2.shared.dir";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, JsonNode> CACHE = new ConcurrentHashMap<>();

    private Goldens() {}

    /** @return the shared directory (contains {@code reference/}, {@code docs/}, {@code fixtures/}) */
    public static Path sharedDir() {
        String property = System.getProperty(SHARED_DIR_PROPERTY);
        if (property != null && !property.isBlank()) {
            Path dir = Paths.get(property).toAbsolutePath().normalize();
            if (!Files.isDirectory(dir.resolve("reference"))) {
                throw new IllegalStateException(SHARED_DIR_PROPERTY + " = " + dir
                        + " has no reference/ directory; point it at the shared folder");
            }
            return dir;
        }
        Path start = Paths.get("").toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared");
            if (Files.isDirectory(candidate.resolve("reference"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find the shared directory: set -D" + SHARED_DIR_PROPERTY
                + " or keep shared/ beside the project root (searched upwards from " + start + ")");
    }

    /** @return {@code sharedDir()/reference} */
    public static Path referenceDir() {
        return sharedDir().resolve("reference");
    }

    /**
     * Parses (once per file) a golden file.
     *
     * @param fileName a file in {@code shared/reference}, e.g. {@code schedule.json}
     * @return its JSON tree
     */
    public static JsonNode load(String fileName) {
        return CACHE.computeIfAbsent(fileName, name -> {
            Path file = referenceDir().resolve(name);
            try {
                return MAPPER.readTree(file.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read golden file " + file, e);
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
