package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The parts one folder provides.
 *
 * @param folder the folder, absolute
 * @param config its {@code flux2-config.json}, when the folder is described by one
 * @param parts the parts found
 * @param graphs every graph found by signature (empty when a config describes the folder)
 * @param conflicts per part, why it cannot be taken from this folder (two graphs claim it)
 */
record FolderParts(
        Path folder,
        Optional<BundleConfig> config,
        Map<ModelRole, ModelPart> parts,
        List<GraphClassification> graphs,
        Map<ModelRole, String> conflicts) {

    /** Copies. */
    FolderParts {
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(config, "config");
        Map<ModelRole, ModelPart> p = new EnumMap<>(ModelRole.class);
        p.putAll(parts);
        parts = Collections.unmodifiableMap(p);
        graphs = List.copyOf(graphs);
        Map<ModelRole, String> c = new EnumMap<>(ModelRole.class);
        c.putAll(conflicts);
        conflicts = Collections.unmodifiableMap(c);
    }

    /** @param role a part @return it, if this folder provides it */
    Optional<ModelPart> part(ModelRole role) {
        return Optional.ofNullable(parts.get(role));
    }

    /** @return the graphs found that play no role */
    List<GraphClassification> unknownGraphs() {
        return graphs.stream().filter(g -> g.role().isEmpty()).toList();
    }
}
