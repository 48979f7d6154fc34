package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * One file a bundle should (or, for an optional graph, may) contain.
 *
 * @param path path relative to the bundle folder
 * @param owner what names it (for example {@code models.transformer.file} or a manifest)
 * @param expectedBytes the size the config promises, or -1 when it promises none
 * @param actualBytes the size on disk, or -1 when the file is missing
 * @param optional whether the backend runs without it (an optional graph the folder lacks)
 * @param problem what is wrong with the file, or empty; a manifest carries the problems of the shard set it lists
 */
public record BundleFile(
        String path, String owner, long expectedBytes, long actualBytes, boolean optional, String problem) {

    /** Checks for nulls. */
    public BundleFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(problem, "problem");
    }

    /** @return whether the file exists */
    public boolean exists() {
        return actualBytes >= 0;
    }
}
