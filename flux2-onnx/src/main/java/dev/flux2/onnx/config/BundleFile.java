package dev.flux2.onnx.config;

import java.util.Objects;

/**
 * One file a bundle should contain.
 *
 * @param path path relative to the bundle folder
 * @param owner what names it (for example {@code models.transformer.file} or a manifest)
 * @param expectedBytes the size the config promises, or -1 when it promises none
 * @param actualBytes the size on disk, or -1 when the file is missing
 */
public record BundleFile(String path, String owner, long expectedBytes, long actualBytes) {

    /** Checks for nulls. */
    public BundleFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(owner, "owner");
    }

    /** @return whether the file exists */
    public boolean exists() {
        return actualBytes >= 0;
    }
}
