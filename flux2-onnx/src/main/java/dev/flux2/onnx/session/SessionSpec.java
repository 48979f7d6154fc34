package dev.flux2.onnx.session;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a session is opened for: one graph file with some symbolic dimensions pinned to sizes (docs/bundle-format.md
 * §7). Two specs are equal when a session opened for one serves the other.
 *
 * @param graphKey the config key, for messages and for the resident cache
 * @param file the graph file (its external data beside it)
 * @param dimensions symbolic dimension values to pin ({@code setSymbolicDimensionValue}), sorted by name
 * @param optimizationLevel the graph optimization level for this graph
 */
public record SessionSpec(
        String graphKey, Path file, Map<String, Long> dimensions, OptimizationLevel optimizationLevel) {

    /** Copies. */
    public SessionSpec {
        Objects.requireNonNull(graphKey, "graphKey");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(optimizationLevel, "optimizationLevel");
        dimensions = Collections.unmodifiableMap(new TreeMap<>(dimensions));
    }

    /** @return a label such as {@code transformer (flux2-klein-4b-transformer-q4.onnx)} */
    public String label() {
        return graphKey + " (" + file.getFileName() + ")";
    }
}
