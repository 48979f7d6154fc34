package dev.flux2.spi;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ProviderFallback;
import dev.flux2.api.VaeAttentionMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a backend needs to open a model, as chosen on {@code Flux2Pipeline.builder()}.
 *
 * @param modelDirectory the model folder
 * @param memoryPolicy when sessions stay open
 * @param intraOpThreads threads per inference call; 0 lets the runtime decide
 * @param executionProviders requested providers in order of preference (for example {@code [cuda, cpu]}); empty
 *     means CPU only
 * @param providerFallback what to do when a requested provider cannot be enabled
 * @param vaeAttention how the VAE decoder computes attention
 * @param vaeChunkSize query rows per VAE attention chunk; 0 uses the bundle's own chunk size
 * @param options further backend-specific options (unknown keys are an error in the backend)
 */
public record BackendConfig(
        Path modelDirectory,
        MemoryPolicy memoryPolicy,
        int intraOpThreads,
        List<String> executionProviders,
        ProviderFallback providerFallback,
        VaeAttentionMode vaeAttention,
        int vaeChunkSize,
        Map<String, String> options) {

    /** Validates and copies. */
    public BackendConfig {
        Objects.requireNonNull(modelDirectory, "modelDirectory");
        Objects.requireNonNull(memoryPolicy, "memoryPolicy");
        Objects.requireNonNull(providerFallback, "providerFallback");
        Objects.requireNonNull(vaeAttention, "vaeAttention");
        executionProviders = List.copyOf(executionProviders);
        options = Map.copyOf(options);
        if (intraOpThreads < 0) {
            throw new IllegalArgumentException("intraOpThreads must be >= 0, got " + intraOpThreads);
        }
        if (vaeChunkSize < 0) {
            throw new IllegalArgumentException("vaeChunkSize must be >= 0, got " + vaeChunkSize);
        }
    }
}
