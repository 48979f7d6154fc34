package dev.flux2.onnx.derived;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A derived graph ready to open: the graph file, and the folder its external-data locations are relative to
 * (the bundle folder, or a cache folder that links the bundle's shards). ONNX Runtime opens it from its bytes with
 * {@code session.model_external_initializers_file_folder_path} set to {@code dataFolder}
 * (docs/design-notes.md §5).
 *
 * @param graphKey the config key
 * @param graphFile the derived {@code .onnx} file
 * @param dataFolder the folder external data is read from
 */
public record DerivedGraph(String graphKey, Path graphFile, Path dataFolder) {
    /** Checks for nulls. */
    public DerivedGraph {
        Objects.requireNonNull(graphKey, "graphKey");
        Objects.requireNonNull(graphFile, "graphFile");
        Objects.requireNonNull(dataFolder, "dataFolder");
    }
}
