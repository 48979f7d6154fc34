package dev.flux2.api;

import dev.flux2.pipeline.BackendLocator;
import java.nio.file.Path;
import java.util.Objects;

/** Static helpers about model folders that do not need an open pipeline. */
public final class Flux2Models {
    private Flux2Models() {}

    /**
     * Describes a model folder (files and sizes, graph signatures, backend details) without loading weights. An
     * incomplete folder is described too: missing and mis-sized files are listed with their problem.
     *
     * @param directory the model folder
     * @return the summary
     * @throws ModelLoadException when the folder does not exist, no backend understands it, or its configuration
     *     cannot be read
     */
    public static ModelSummary inspect(Path directory) {
        return BackendLocator.inspect(Objects.requireNonNull(directory, "directory"));
    }
}
