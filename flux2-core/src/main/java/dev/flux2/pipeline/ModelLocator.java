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
import java.util.Optional;
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
        Optional<String> pathSign = looksLikePath(ref);
        if (pathSign.isPresent()) {
            // Not sent to a resolver: a mistyped folder must not end in a network error that never names it.
            throw new ModelLoadException("model folder " + (folder == null ? "'" + ref + "'" : folder.toAbsolutePath())
                    + " does not exist (taken for a folder, not a repo id, because " + pathSign.get()
                    + "); give an existing folder, or a repo id owner/name[@revision]");
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

    /**
     * The rule that tells a folder that does not exist from a model name (docs/cli.md, "--model"): a reference is
     * a path when it starts with {@code .}, {@code /} or {@code ~}, holds a backslash, ends with {@code /}, has
     * more than one {@code /} before its {@code @revision}, or when its first segment is an existing folder (as
     * {@code target} in {@code target/demo-bundel}). A repo id ({@code owner/name[@revision]}) has none of these.
     *
     * @param ref the trimmed reference, not an existing file or folder
     * @return why it is taken for a path, or empty when it may be a model name
     */
    static Optional<String> looksLikePath(String ref) {
        if (ref.startsWith("~")) {
            return Optional.of("it starts with '~', which only a shell expands, and not inside quotes");
        }
        if (ref.startsWith(".") || ref.startsWith("/")) {
            return Optional.of("it starts with '" + ref.charAt(0) + "'");
        }
        if (ref.indexOf('\\') >= 0) {
            return Optional.of("it holds a '\\'");
        }
        int at = ref.indexOf('@');
        String repo = at < 0 ? ref : ref.substring(0, at);
        if (repo.endsWith("/")) {
            return Optional.of("it ends with '/'");
        }
        int slash = repo.indexOf('/');
        if (slash >= 0 && repo.indexOf('/', slash + 1) >= 0) {
            return Optional.of("it has more than one '/', and a repo id has one");
        }
        if (slash > 0) {
            Path parent = asPath(repo.substring(0, slash));
            if (parent != null && Files.isDirectory(parent)) {
                return Optional.of("its first part '" + repo.substring(0, slash) + "' is an existing folder");
            }
        }
        return Optional.empty();
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
