package dev.flux2.pipeline;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/** Finds the backend for a model folder with {@link ServiceLoader}. */
public final class BackendLocator {
    private BackendLocator() {
    }

    /**
     * Opens the model with the named backend, or with the first backend that recognises the folder.
     *
     * @param config the model folder and options
     * @param backendName a provider name, or null for any
     * @return the opened backend
     * @throws ModelLoadException when the folder is missing or no backend can open it
     */
    public static Flux2Backend open(BackendConfig config, String backendName) {
        return select(config.modelDirectory(), backendName).open(config);
    }

    /**
     * @param directory the model folder
     * @return the summary from the first backend that recognises the folder
     */
    public static ModelSummary inspect(Path directory) {
        return select(directory, null).inspect(directory);
    }

    private static Flux2BackendProvider select(Path directory, String backendName) {
        if (!Files.isDirectory(directory)) {
            throw new ModelLoadException("model directory " + directory.toAbsolutePath()
                    + " does not exist or is not a directory");
        }
        List<Flux2BackendProvider> providers = new ArrayList<>();
        ServiceLoader.load(Flux2BackendProvider.class, BackendLocator.class.getClassLoader()).forEach(providers::add);
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
            throw new ModelLoadException("no backend named '" + backendName + "' on the classpath (available: "
                    + names + ")");
        }
        throw new ModelLoadException("no backend recognises " + directory.toAbsolutePath()
                + " as a model folder (tried: " + names + "); an ONNX bundle needs flux2-config.json");
    }
}
