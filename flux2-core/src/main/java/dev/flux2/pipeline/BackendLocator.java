package dev.flux2.pipeline;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Finds the backend for a model folder with {@link ServiceLoader}. */
public final class BackendLocator {
    private BackendLocator() {}

    /**
     * Opens the model with the named backend, or with the first backend that recognises the folder.
     *
     * @param config the model folder and options
     * @param backendName a provider name, or null for any
     * @return the opened backend; the caller owns it
     * @throws ModelLoadException when the folder is missing, no backend can open it, or opening fails
     */
    public static Flux2Backend open(BackendConfig config, String backendName) {
        Flux2BackendProvider provider = select(config.modelDirectory(), backendName, installedProviders());
        return call(provider, config.modelDirectory(), "open", p -> p.open(config));
    }

    /**
     * @param directory the model folder
     * @return the summary from the first backend that recognises the folder
     * @throws ModelLoadException when the folder is missing or no backend recognises it
     */
    public static ModelSummary inspect(Path directory) {
        return inspect(directory, Map.of());
    }

    /**
     * @param directory the model folder
     * @param components parts taken from elsewhere (empty for the folder alone)
     * @return the summary from the first backend that recognises the folder
     * @throws ModelLoadException when the folder is missing or no backend recognises it
     */
    public static ModelSummary inspect(Path directory, Map<ModelRole, Path> components) {
        Flux2BackendProvider provider = select(directory, null, installedProviders());
        return call(
                provider,
                directory,
                "inspect",
                p -> components.isEmpty() ? p.inspect(directory) : p.inspect(directory, components));
    }

    /**
     * @param directory the model folder
     * @param components parts taken from elsewhere (empty for the folder alone)
     * @param listedSizes sizes of files absent from the folder, as a hub lists them
     * @return the summary from the first backend that recognises the folder
     * @throws ModelLoadException when the folder is missing or no backend recognises it
     */
    public static ModelSummary inspect(Path directory, Map<ModelRole, Path> components, Map<String, Long> listedSizes) {
        if (listedSizes.isEmpty()) {
            return inspect(directory, components);
        }
        Flux2BackendProvider provider = select(directory, null, installedProviders());
        return call(provider, directory, "inspect", p -> p.inspect(directory, components, listedSizes));
    }

    /**
     * Checks a folder with every installed backend that recognises it: each file its configuration names must
     * exist with the size it promises.
     *
     * @param directory the folder
     * @return one line per problem (file, expected and actual size); empty when the folder is usable or when no
     *     installed backend recognises it
     */
    public static List<String> check(Path directory) {
        List<String> problems = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            problems.add(directory.toAbsolutePath() + " is not a directory");
            return problems;
        }
        for (Flux2BackendProvider provider : installedProviders()) {
            if (!provider.canOpen(directory)) {
                continue;
            }
            try {
                ModelSummary summary = call(provider, directory, "inspect", p -> p.inspect(directory));
                for (ModelSummary.FileEntry f : summary.files()) {
                    if (!f.ok()) {
                        // The backend's own words: a manifest whose shards do not add up has no expected size
                        // of its own, and a FIFO or folder where a file should be is not "missing".
                        problems.add(f.path() + ": " + f.problem());
                    }
                }
            } catch (ModelLoadException e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }

    private static List<Flux2BackendProvider> installedProviders() {
        List<Flux2BackendProvider> providers = new ArrayList<>();
        ServiceLoader.load(Flux2BackendProvider.class, BackendLocator.class.getClassLoader())
                .forEach(providers::add);
        return providers;
    }

    /**
     * Keeps SDK exceptions as they are and turns any other failure of a provider into a {@link ModelLoadException}
     * that names the backend and the folder, so that callers only ever see the documented exception types.
     */
    private static <T> T call(
            Flux2BackendProvider provider, Path directory, String what, Function<Flux2BackendProvider, T> action) {
        T result;
        try {
            result = action.apply(provider);
        } catch (Flux2Exception e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ModelLoadException(
                    "backend '" + provider.name() + "' failed to " + what + " " + directory.toAbsolutePath() + ": " + e,
                    e);
        }
        return Objects.requireNonNull(result, () -> "backend '" + provider.name() + "' returned null from " + what);
    }

    /**
     * @param directory the model folder
     * @param backendName a provider name (case-insensitive), or null for the first provider that recognises it
     * @param providers the candidates, in ServiceLoader order
     * @return the chosen provider
     * @throws ModelLoadException naming the folder, the requested backend and the available ones
     */
    static Flux2BackendProvider select(Path directory, String backendName, List<Flux2BackendProvider> providers) {
        if (!Files.isDirectory(directory)) {
            throw new ModelLoadException("model directory " + directory.toAbsolutePath()
                    + " does not exist or is not a directory (an ONNX model is a folder of .onnx graphs, with or"
                    + " without flux2-config.json)");
        }
        if (providers.isEmpty()) {
            throw new ModelLoadException("no FLUX.2 backend on the classpath: add the flux2-onnx artifact "
                    + "(it registers dev.flux2.spi.Flux2BackendProvider)");
        }
        String names = providers.stream().map(Flux2BackendProvider::name).collect(Collectors.joining(", "));
        for (Flux2BackendProvider provider : providers) {
            if (backendName != null) {
                if (provider.name().equalsIgnoreCase(backendName)) {
                    return provider;
                }
            } else if (provider.canOpen(directory)) {
                return provider;
            }
        }
        if (backendName != null) {
            throw new ModelLoadException(
                    "no backend named '" + backendName + "' on the classpath (available: " + names + ")");
        }
        throw new ModelLoadException("no backend recognises " + directory.toAbsolutePath()
                + " as a model folder (tried: " + names + "); an ONNX model needs .onnx graphs (and, for the"
                + " MarkShark2 layout, flux2-config.json)");
    }
}
