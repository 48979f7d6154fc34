package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a model's parts were found, and what the backend will run.
 *
 * @param directory the model folder, absolute
 * @param name the layout, as {@code flux2 info} prints it (for example {@code hlhc (graph signatures)} or
 *     {@code markshark2 (flux2-config.json)})
 * @param config what the backend runs; empty when the parts do not make a usable model (then {@code problems} says
 *     why)
 * @param origins where each part comes from (a config file, a graph file, a folder)
 * @param graphs every graph of the model folder recognised by signature (empty when a config describes the folder)
 * @param problems why the parts do not make a usable model; empty when {@code config} is present
 */
public record BundleLayout(
        Path directory,
        String name,
        Optional<BundleConfig> config,
        Map<ModelRole, String> origins,
        List<GraphClassification> graphs,
        List<String> problems) {

    /** Copies and checks consistency. */
    public BundleLayout {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(config, "config");
        Map<ModelRole, String> o = new EnumMap<>(ModelRole.class);
        o.putAll(origins);
        origins = Collections.unmodifiableMap(o);
        graphs = List.copyOf(graphs);
        problems = List.copyOf(problems);
        if (config.isPresent() != problems.isEmpty()) {
            throw new IllegalArgumentException("a layout has a config exactly when it has no problem");
        }
    }

    /** @return the graphs of the model folder that play no role (ignored) */
    public List<GraphClassification> unknownGraphs() {
        return graphs.stream().filter(g -> g.role().isEmpty()).toList();
    }

    /**
     * @return what the backend runs
     * @throws ModelLoadException naming every problem and every graph found with its inputs and outputs
     */
    public BundleConfig requireConfig() {
        return config.orElseThrow(() -> new ModelLoadException(message()));
    }

    private String message() {
        StringBuilder m = new StringBuilder("cannot use ")
                .append(directory)
                .append(" as a FLUX.2 [klein] model (")
                .append(name)
                .append("): ")
                .append(String.join("; ", problems));
        if (!graphs.isEmpty()) {
            m.append(". Graphs found:");
            for (GraphClassification g : graphs) {
                m.append(' ').append(g.describe()).append(';');
            }
            m.setLength(m.length() - 1);
        }
        return m.toString();
    }
}
