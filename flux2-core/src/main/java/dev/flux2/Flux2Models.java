package dev.flux2;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.pipeline.BackendLocator;
import dev.flux2.pipeline.ModelLocator;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Static helpers about model folders and model names that do not need an open pipeline. Model names are known to
 * no class here: a name is resolved by a {@link ModelResolver} ({@code flux2-hub} registers one for Hugging Face
 * repo ids and holds the default model's name, {@code dev.flux2.hub.ModelNames}).
 */
public final class Flux2Models {
    private Flux2Models() {}

    /**
     * Turns a model reference into a local folder: an existing folder is used as it is; any other string is
     * handed to the first installed {@link ModelResolver} that accepts it ({@code flux2-hub}: a Hugging Face repo id
     * {@code owner/name} or {@code owner/name@revision}, looked up in the shared hub cache, fetched and verified
     * when missing, with the settings of the environment).
     *
     * @param reference a folder path or a model name
     * @return a complete model folder
     * @throws ModelLoadException when the reference cannot be resolved, naming what is missing or wrong (without
     *     an installed resolver: naming the module to add, {@code flux2-hub})
     */
    public static Path resolve(String reference) {
        return ModelLocator.resolve(reference, null);
    }

    /**
     * As {@link #resolve(String)}, with a given resolver instead of the installed ones (for example a
     * {@code dev.flux2.hub.HubModelResolver} with its own cache folder, offline mode or download listener).
     *
     * @param reference a folder path or a model name
     * @param resolver the resolver for a reference that names no existing folder
     * @return a complete model folder
     * @throws ModelLoadException when the reference cannot be resolved, naming what is missing or wrong
     */
    public static Path resolve(String reference, ModelResolver resolver) {
        return ModelLocator.resolve(reference, Objects.requireNonNull(resolver, "resolver"));
    }

    /**
     * Checks a folder with the installed backend that recognises it (every file present, with the size its
     * configuration promises) without loading weights.
     *
     * @param directory the folder
     * @return one line per problem; empty when the folder is complete or no installed backend recognises it
     */
    public static List<String> check(Path directory) {
        return BackendLocator.check(Objects.requireNonNull(directory, "directory"));
    }

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
        return BackendLocator.inspect(Objects.requireNonNull(directory, "directory"), Map.of());
    }

    /**
     * Describes a model composed of a folder and parts taken from elsewhere
     * ({@link Flux2Pipeline.Builder#component}), as the pipeline would open it, without loading weights.
     *
     * @param directory the model folder
     * @param components each replaced part's source, a folder or a file
     * @return the summary
     * @throws ModelLoadException when the folder does not exist, no backend understands it, or a part cannot be
     *     read
     */
    public static ModelSummary inspect(Path directory, Map<ModelRole, Path> components) {
        return BackendLocator.inspect(
                Objects.requireNonNull(directory, "directory"), Objects.requireNonNull(components, "components"));
    }

    /**
     * Describes a model of which some files were not fetched but are listed with their sizes (the hub's file list of
     * a partial snapshot): each such file is checked against its listed size instead of its size on disk, and the
     * description says so. A backend that cannot use the listing reports such files missing.
     *
     * @param directory the model folder
     * @param components each replaced part's source, a folder or a file
     * @param listedSizes sizes of files absent from the folder, by path relative to it with {@code /} separators
     * @return the summary
     * @throws ModelLoadException when the folder does not exist, no backend understands it, or a part cannot be
     *     read
     */
    public static ModelSummary inspect(Path directory, Map<ModelRole, Path> components, Map<String, Long> listedSizes) {
        return BackendLocator.inspect(
                Objects.requireNonNull(directory, "directory"),
                Objects.requireNonNull(components, "components"),
                Objects.requireNonNull(listedSizes, "listedSizes"));
    }
}
