package dev.flux2.onnx.runtime;

import java.nio.file.Path;
import java.util.Objects;

/**
 * An installed, verified WebGPU runtime.
 *
 * @param ortVersion the ONNX Runtime version
 * @param platform the platform key, for example {@code linux-x64}
 * @param folder {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>}
 * @param library the ONNX Runtime library in the folder
 * @param installedNow true when this call installed it, false when a verified copy was already there
 * @param source where the files came from (the npm package, a tarball or a folder)
 */
public record RuntimeInstallation(
        String ortVersion, String platform, Path folder, Path library, boolean installedNow, String source) {
    /** Checks for nulls. */
    public RuntimeInstallation {
        Objects.requireNonNull(ortVersion, "ortVersion");
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(library, "library");
        Objects.requireNonNull(source, "source");
    }
}
