package dev.flux2.onnx.session;

import ai.onnxruntime.OrtEnvironment;

/**
 * The one {@link OrtEnvironment} of the process. ONNX Runtime allows a single environment per JVM; it is never
 * closed (its {@code close()} is a no-op since 1.11). Thread-safe.
 */
public final class SharedEnvironment {
    private SharedEnvironment() {}

    /** @return the process-wide environment (created, and the natives loaded, on first use) */
    public static OrtEnvironment get() {
        return OrtEnvironment.getEnvironment();
    }
}
