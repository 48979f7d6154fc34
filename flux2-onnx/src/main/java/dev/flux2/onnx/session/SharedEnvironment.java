package dev.flux2.onnx.session;

import ai.onnxruntime.OrtEnvironment;
import dev.flux2.onnx.runtime.OrtNativeLibrary;

/**
 * The one {@link OrtEnvironment} of the process. ONNX Runtime allows a single environment per JVM, on one native
 * library chosen before it initialises ({@link OrtNativeLibrary}); it is never closed by flux2-java (its
 * {@code close()} is a no-op since 1.11). Thread-safe.
 */
public final class SharedEnvironment {
    private SharedEnvironment() {}

    /** @return the process-wide environment (created, and the natives loaded, on first use) */
    public static OrtEnvironment get() {
        return OrtNativeLibrary.environment();
    }
}
