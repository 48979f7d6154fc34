package dev.flux2.server;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;

/**
 * What the service needs from a pipeline: {@code pipeline::generate}. An interface so that a deployment can wrap
 * the shared pipeline (metrics, admission, tests that hold a generation at a given step).
 */
@FunctionalInterface
public interface ImageGenerator {
    /**
     * @param request a validated request carrying the service's cancellation token
     * @return the generated images
     */
    GenerationResult generate(GenerationRequest request);
}
