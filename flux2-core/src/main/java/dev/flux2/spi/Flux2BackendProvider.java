package dev.flux2.spi;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import java.nio.file.Path;
import java.util.Map;

/**
 * Entry point of a backend, registered in {@code META-INF/services/dev.flux2.spi.Flux2BackendProvider}.
 * Implementations must have a public no-argument constructor and be cheap to construct (no native loading).
 */
public interface Flux2BackendProvider {

    /** @return a short unique name, for example {@code onnx} */
    String name();

    /**
     * A quick look (no parsing of large files) at whether the folder looks like a model this backend loads.
     *
     * @param modelDirectory the model folder
     * @return true when {@link #open} should be tried
     */
    boolean canOpen(Path modelDirectory);

    /**
     * Opens the model: parses the configuration and checks every file, size and graph signature that can be
     * checked without loading the weights.
     *
     * @param config the model folder and runtime options
     * @return the backend; the caller owns it and must close it
     * @throws dev.flux2.api.ModelLoadException naming the file or graph and what was expected
     */
    Flux2Backend open(BackendConfig config);

    /**
     * Describes the model folder for humans ({@code flux2 info}). Must not load weights.
     *
     * @param modelDirectory the model folder
     * @return the summary
     * @throws dev.flux2.api.ModelLoadException when the folder cannot be described
     */
    ModelSummary inspect(Path modelDirectory);

    /**
     * Describes a model whose parts partly come from elsewhere ({@link BackendConfig#components()}), as {@link #open}
     * would compose it. Must not load weights. The default handles no component.
     *
     * @param modelDirectory the model folder
     * @param components each replaced part's source, a folder or a file
     * @return the summary
     * @throws ModelLoadException when the model cannot be described, or this backend takes no components
     */
    default ModelSummary inspect(Path modelDirectory, Map<ModelRole, Path> components) {
        if (!components.isEmpty()) {
            throw new ModelLoadException(
                    "backend '" + name() + "' cannot take model parts from elsewhere (" + components.keySet() + ")");
        }
        return inspect(modelDirectory);
    }

    /**
     * Describes a model of which some files are not in the folder but listed elsewhere with their sizes (a hub's
     * file list: {@code flux2 info --model REPO} fetches no external data), each such file checked against its
     * listed size as it would be against its size on disk. Must not load weights. The default ignores the listing,
     * so that such files are reported missing.
     *
     * @param modelDirectory the model folder
     * @param components each replaced part's source, a folder or a file
     * @param listedSizes sizes of files absent from the folder, by path relative to it with {@code /} separators
     * @return the summary
     * @throws ModelLoadException when the model cannot be described, or this backend takes no components
     */
    default ModelSummary inspect(Path modelDirectory, Map<ModelRole, Path> components, Map<String, Long> listedSizes) {
        return inspect(modelDirectory, components);
    }
}
