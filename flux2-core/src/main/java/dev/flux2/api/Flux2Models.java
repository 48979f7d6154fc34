package dev.flux2.api;

import dev.flux2.pipeline.BackendLocator;
import dev.flux2.pipeline.ModelLocator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Static helpers about model folders and model names that do not need an open pipeline. */
public final class Flux2Models {
    /**
     * The default model: the public q4 ONNX bundle of FLUX.2 [klein] 4B at the pinned commit whose files (sizes
     * and BLAKE3 digests) the SDK ships and checks. 18 files, 5,225,022,190 bytes (4.87 GiB).
     */
    public static final String DEFAULT_MODEL = Flux2Models.DEFAULT_MODEL_REPO + "@" + Flux2Models.DEFAULT_MODEL_COMMIT;

    /** The repository of {@link #DEFAULT_MODEL}. */
    public static final String DEFAULT_MODEL_REPO = "MarkShark2/flux2-klein-4b-onnx-webgpu-q4";

    /** The pinned commit of {@link #DEFAULT_MODEL}. */
    public static final String DEFAULT_MODEL_COMMIT = "929085adfad60491e9af05095cd280955fc0c29d";

    /**
     * The plain ONNX Runtime export of FLUX.2 [klein] 4B by hlhc (float32 activations, int4 text encoder, int8
     * transformer, one external-data file per graph, one VAE decoder graph and a VAE encoder), branch {@code main}:
     * suited to CPU, CUDA and DirectML. It has no {@code flux2-config.json}; its parts are found by their graphs'
     * signatures. Not pinned: its files are checked against the hub's hashes, not against a shipped list.
     */
    public static final String HLHC_MODEL = "hlhc/FLUX.2-klein-4B-onnx";

    private Flux2Models() {}

    /**
     * Turns a model reference into a local folder: an existing folder is used as it is; any other string is
     * handed to an installed {@link dev.flux2.spi.ModelResolver} ({@code flux2-hub}: a Hugging Face repo id
     * {@code owner/name} or {@code owner/name@revision}, looked up in the shared hub cache, fetched and verified
     * when missing).
     *
     * @param reference a folder path or a model name, for example {@link #DEFAULT_MODEL}
     * @param options cache folder, offline mode, token, endpoint and progress listener
     * @return a complete model folder
     * @throws ModelLoadException when the reference cannot be resolved, naming what is missing or wrong
     */
    public static Path resolve(String reference, HubOptions options) {
        return ModelLocator.resolve(reference, Objects.requireNonNull(options, "options"));
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
}
