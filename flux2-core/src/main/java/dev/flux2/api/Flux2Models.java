package dev.flux2.api;

import dev.flux2.pipeline.BackendLocator;
import java.nio.file.Path;
import java.util.Objects;

/** Static helpers about model folders that do not need an open pipeline. */
public final class Flux2Models {
    private Flux2Models() {}

    /**
     * Describes a model folder (files and sizes, graph signatures, fused convention, available providers) without
     * loading weights.
     *
     * @param directory the model folder
     * @return the summary
     * @throws ModelLoadException when no backend understands the folder
     */
    public static ModelSummary inspect(Path directory) {
        return BackendLocator.inspect(Objects.requireNonNull(directory, "directory"));
    }
}
