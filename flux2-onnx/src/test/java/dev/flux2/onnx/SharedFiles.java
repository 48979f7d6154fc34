package dev.flux2.onnx;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Locates ../shared (set by surefire as {@code flux2.shared.dir}) and its seed config. */
public final class SharedFiles {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SharedFiles() {}

    /** @return the shared folder */
    public static Path sharedDir() {
        String prop = System.getProperty("flux2.shared.dir");
        if (prop != null && !prop.isBlank() && Files.isDirectory(Path.of(prop))) {
            return Path.of(prop);
        }
        Path fromModule = Path.of("..", "..", "shared");
        return Files.isDirectory(fromModule) ? fromModule : Path.of("..", "shared");
    }

    /** @return a fresh mutable copy of the seed flux2-config.json */
    public static ObjectNode seedConfig() {
        try {
            return (ObjectNode) MAPPER.readTree(
                    sharedDir().resolve("seeds").resolve("flux2-config.json").toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param config a config tree
     * @param file where to write it
     * @return the file
     */
    public static Path write(ObjectNode config, Path file) {
        try {
            MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), config);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
