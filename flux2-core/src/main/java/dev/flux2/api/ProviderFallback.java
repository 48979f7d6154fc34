package dev.flux2.api;

/** What to do when a requested execution provider (CUDA, CoreML, …) cannot be enabled in this runtime. */
public enum ProviderFallback {
    /** Fail in {@code build()} with a {@link ModelLoadException} that names the provider and the reason. */
    FAIL,
    /** Log a warning naming the provider and the reason, and continue with the next provider (finally CPU). */
    WARN_AND_FALL_BACK
}
