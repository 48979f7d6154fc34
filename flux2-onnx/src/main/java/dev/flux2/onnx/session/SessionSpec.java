package dev.flux2.onnx.session;

import dev.flux2.onnx.options.OptimizationLevel;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a session is opened for: one graph file with some symbolic dimensions pinned to sizes (docs/bundle-format.md
 * §7). Two specs are equal when a session opened for one serves the other.
 *
 * @param graphKey the config key, for messages and for the resident cache
 * @param file the graph file (its external data beside it)
 * @param dimensions symbolic dimension values to pin ({@code setSymbolicDimensionValue}), sorted by name
 * @param optimizationLevel the graph optimization level for this graph
 * @param weightBytes the graph's weights (its file and external data), what the memory accounting of
 *     {@link SequentialBudget} weighs; 0 when unknown
 * @param dataFolder where the graph's external data is, when not beside it (a derived CPU-tuned graph): the session
 *     is then created from the graph's bytes with ONNX Runtime's external-initializer folder set to it
 */
public record SessionSpec(
        String graphKey,
        Path file,
        Map<String, Long> dimensions,
        OptimizationLevel optimizationLevel,
        long weightBytes,
        Optional<Path> dataFolder) {

    /** Copies. */
    public SessionSpec {
        Objects.requireNonNull(graphKey, "graphKey");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(optimizationLevel, "optimizationLevel");
        dimensions = Collections.unmodifiableMap(new TreeMap<>(dimensions));
        Objects.requireNonNull(dataFolder, "dataFolder");
        if (weightBytes < 0) {
            throw new IllegalArgumentException("weightBytes must be >= 0, got " + weightBytes);
        }
    }

    /**
     * A spec whose weights are not known (kept by no {@link SequentialBudget}).
     *
     * @param graphKey the config key
     * @param file the graph file
     * @param dimensions symbolic dimension values to pin
     * @param optimizationLevel the graph optimization level
     */
    public SessionSpec(String graphKey, Path file, Map<String, Long> dimensions, OptimizationLevel optimizationLevel) {
        this(graphKey, file, dimensions, optimizationLevel, 0, Optional.empty());
    }

    /**
     * A spec for a graph with its external data beside it.
     *
     * @param graphKey the config key
     * @param file the graph file
     * @param dimensions symbolic dimension values to pin
     * @param optimizationLevel the graph optimization level
     * @param weightBytes the graph's weights
     */
    public SessionSpec(
            String graphKey,
            Path file,
            Map<String, Long> dimensions,
            OptimizationLevel optimizationLevel,
            long weightBytes) {
        this(graphKey, file, dimensions, optimizationLevel, weightBytes, Optional.empty());
    }

    /** @return a label such as {@code transformer (flux2-klein-4b-transformer-q4.onnx)} */
    public String label() {
        return graphKey + " (" + file.getFileName() + ")";
    }
}
