package dev.flux2.onnx.options;

/**
 * What to do when a requested execution provider (CUDA, CoreML, …) cannot be enabled in this runtime: the backend
 * option {@code provider_fallback}.
 */
public enum ProviderFallback {
    /** Fail in {@code build()} with a {@code ModelLoadException} that names the provider and the reason. */
    FAIL,
    /** Log a warning naming the provider and the reason, and continue with the next provider (finally CPU). */
    WARN
}
