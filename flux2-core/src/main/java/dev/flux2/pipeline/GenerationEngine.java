package dev.flux2.pipeline;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelInfo;
import dev.flux2.spi.Flux2Backend;
import java.util.Objects;

/**
 * Runs generation requests against a backend: resolves defaults, draws noise, encodes text and images, drives the
 * sampler and decodes. Thread-safe. (Skeleton: the sampler is being written under issue 2.)
 */
public final class GenerationEngine implements AutoCloseable {
    private final Flux2Backend backend;

    /** @param backend the opened backend; the engine owns and closes it */
    public GenerationEngine(Flux2Backend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /**
     * @param request the request
     * @return the result
     */
    public GenerationResult generate(GenerationRequest request) {
        throw new IllegalStateException("generation is not wired yet (issue 2 in progress)");
    }

    /** @return the backend's model info */
    public ModelInfo modelInfo() {
        return backend.modelInfo();
    }

    @Override
    public void close() {
        backend.close();
    }
}
