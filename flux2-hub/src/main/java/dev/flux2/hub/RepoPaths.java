package dev.flux2.hub;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Which repository files a bundle needs, and which file names are safe to write.
 *
 * <p>Kept: ONNX graphs and their external data ({@code .onnx}, {@code .onnx_data}, {@code .data}, {@code .pb}),
 * JSON (configs, manifests, {@code tokenizer.json}), {@code .jinja} chat templates, {@code .txt} (merges,
 * vocabularies), {@code .model} and {@code .tiktoken} tokenizers, and {@code .safetensors}. Everything else (the
 * model card {@code README.md}, images, licences, {@code .gitattributes} and any dot-file) is left on the hub.
 */
final class RepoPaths {
    private static final Set<String> BUNDLE_EXTENSIONS =
            Set.of("onnx", "onnx_data", "data", "pb", "json", "jinja", "txt", "model", "tiktoken", "safetensors");

    private RepoPaths() {}

    /**
     * @param path a repository path
     * @return whether a bundle needs it
     */
    static boolean isBundleFile(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.startsWith(".") || path.startsWith(".") || path.contains("/.")) {
            return false;
        }
        int dot = name.lastIndexOf('.');
        return dot > 0 && BUNDLE_EXTENSIONS.contains(name.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    /**
     * Rejects a name that would escape the folder it is written into, as {@code _local_folder.
     * _validate_relative_filename} does: a {@code ..} segment, an absolute, drive or UNC path, a backslash, an
     * empty segment.
     *
     * @param path a repository path
     * @throws HubException naming the path
     */
    static void check(String path) {
        boolean bad = path.isEmpty()
                || path.startsWith("/")
                || path.contains("\\")
                || path.contains("//")
                || path.endsWith("/")
                || path.indexOf(':') >= 0
                || path.indexOf('\0') >= 0;
        for (String segment : path.split("/", -1)) {
            bad |= segment.equals("..") || segment.equals(".");
        }
        if (bad) {
            throw new HubException("the repository lists the file name '" + path
                    + "', which is not a plain relative path; refusing to write it");
        }
    }

    /**
     * @param folder a folder
     * @param path a checked repository path
     * @return the file inside the folder
     * @throws HubException when the result would not be inside the folder
     */
    static Path resolve(Path folder, String path) {
        check(path);
        Path p = folder;
        for (String segment : path.split("/")) {
            p = p.resolve(segment);
        }
        Path normal = p.normalize();
        if (!normal.startsWith(folder.normalize())) {
            throw new HubException("the file name '" + path + "' escapes " + folder + "; refusing to write it");
        }
        return normal;
    }
}
