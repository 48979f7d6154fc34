package dev.flux2.onnx.runtime;

import dev.flux2.api.ModelLoadException;

/**
 * The ONNX Runtime native library cannot be used: not installed, corrupt (its sha512 is not the pinned one), of
 * another version than the Java binding, not loadable, or in conflict with the library ONNX Runtime already runs on in
 * this JVM (the library is chosen once per JVM). The message names the file, the expected and the found value, and
 * what to do. The {@code flux2} CLI exits with code 5 for it.
 */
public class RuntimeLibraryException extends ModelLoadException {
    private static final long serialVersionUID = 1L;

    /** @param message names the library file or folder, what was expected and what was found */
    public RuntimeLibraryException(String message) {
        super(message);
    }

    /**
     * @param message names the library file or folder, what was expected and what was found
     * @param cause the underlying failure
     */
    public RuntimeLibraryException(String message, Throwable cause) {
        super(message, cause);
    }
}
