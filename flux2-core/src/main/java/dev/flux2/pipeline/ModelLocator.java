package dev.flux2.pipeline;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/** Turns a model reference (a folder, or a name a {@link ModelResolver} understands) into a model folder. */
public final class ModelLocator {
    private ModelLocator() {}

    /**
     * An existing folder is used as it is; any other reference goes to the given resolver, or (when none is given)
     * to the first installed {@link ModelResolver} that accepts it.
     *
     * @param reference a folder path or a model name (for example {@code owner/name@revision})
     * @param given the resolver to use, or null for the installed ones
     * @return the model folder
     * @throws ModelLoadException when nothing can resolve the reference, or resolution fails
     */
    public static Path resolve(String reference, ModelResolver given) {
        Objects.requireNonNull(reference, "reference");
        String ref = reference.trim();
        if (ref.isEmpty()) {
            throw new ModelLoadException("the model reference is empty: give a folder or a repo id owner/name[@rev]");
        }
        Path folder = asPath(ref);
        if (folder != null && Files.isDirectory(folder)) {
            return folder;
        }
        if (folder != null && Files.exists(folder)) {
            // A file is not a repo id either: saying the folder "does not exist" would send the user looking for it.
            String what = dev.flux2.spi.ModelFiles.notRegular(folder).isEmpty()
                    ? "is a file"
                    : "is neither a folder nor a file (a FIFO, socket or device)";
            throw new ModelLoadException("model path " + folder.toAbsolutePath() + " " + what
                    + "; expected the model's folder (the one holding flux2-config.json or the .onnx graphs)");
        }
        List<ModelResolver> resolvers = given != null ? List.of(given) : installedResolvers();
        for (ModelResolver resolver : resolvers) {
            if (resolver.accepts(ref)) {
                return call(resolver, ref);
            }
        }
        String where = folder == null ? "'" + ref + "'" : "model directory " + folder.toAbsolutePath();
        if (resolvers.isEmpty()) {
            throw new ModelLoadException(where + " does not exist, and no model resolver is on the classpath to fetch '"
                    + ref + "' by name (add flux2-hub, which flux2-onnx brings, for Hugging Face repo ids)");
        }
        String which = given != null ? "model resolver '" + given.name() + "'" : "any resolver";
        throw new ModelLoadException(where + " does not exist, and '" + ref
                + "' is not a model name " + which + " accepts (a Hugging Face repo id looks like owner/name or"
                + " owner/name@revision)");
    }

    private static Path call(ModelResolver resolver, String ref) {
        Path result;
        try {
            result = resolver.resolve(ref);
        } catch (Flux2Exception e) {
            throw e;
        } catch (RuntimeException e) {
            throw new ModelLoadException(
                    "model resolver '" + resolver.name() + "' failed to resolve '" + ref + "': " + e, e);
        }
        if (result == null || !Files.isDirectory(result)) {
            throw new ModelLoadException("model resolver '" + resolver.name() + "' returned no folder for '" + ref
                    + "' (got " + result + ")");
        }
        return result;
    }

    private static Path asPath(String ref) {
        try {
            return Path.of(ref);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    private static List<ModelResolver> installedResolvers() {
        List<ModelResolver> resolvers = new ArrayList<>();
        ServiceLoader.load(ModelResolver.class, ModelLocator.class.getClassLoader())
                .forEach(resolvers::add);
        return resolvers;
    }
}
