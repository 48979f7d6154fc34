package dev.flux2.spark;

import dev.flux2.api.ModelLoadException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Turns {@link BatchOptions#model()} into the folder an executor loads. */
final class ModelLocation {
    private static final Pattern REPO_ID =
            Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*(@.+)?");

    private ModelLocation() {}

    /**
     * @param model a local folder path or {@code file:} URI, the same on every executor
     * @return the folder
     * @throws ModelLoadException when it is not a folder on this machine (naming the host)
     */
    static Path resolve(String model) {
        Path folder;
        try {
            folder = model.startsWith("file:") ? Path.of(URI.create(model)) : Path.of(model);
        } catch (IllegalArgumentException e) {
            throw new ModelLoadException("model " + Values.quote(model) + " is not a folder path: " + e.getMessage());
        }
        if (Files.isDirectory(folder)) {
            return folder;
        }
        String host = hostName();
        if (REPO_ID.matcher(model).matches() && !model.startsWith("/") && !model.startsWith(".")) {
            throw new ModelLoadException("model " + Values.quote(model) + " is not a folder on " + host
                    + "; this build loads models from folders only (a Hugging Face repository id is not resolved)");
        }
        throw new ModelLoadException("model folder " + folder.toAbsolutePath() + " does not exist on " + host
                + " (every executor must read the model at the same path)");
    }

    private static String hostName() {
        try {
            return "host " + java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "this host";
        }
    }
}
