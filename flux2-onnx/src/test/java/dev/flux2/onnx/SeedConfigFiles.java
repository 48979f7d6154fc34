package dev.flux2.onnx;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.testkit.SeedConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Writes the MarkShark2 seed config ({@link SeedConfig}) and edited copies of it into test folders. */
public final class SeedConfigFiles {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SeedConfigFiles() {}

    /** @return a fresh mutable copy of the seed flux2-config.json */
    public static ObjectNode seedConfig() {
        return SeedConfig.markShark2();
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
