package dev.flux2.server;

import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;

/**
 * What the service needs from a pipeline: {@code pipeline::generate}. An interface so that a deployment can wrap
 * the shared pipeline (metrics, admission, tests that hold a generation at a given step).
 */
@FunctionalInterface
public interface ImageGenerator {
    /**
     * @param request a validated request
     * @param controls carries the service's cancellation token (cancelled on timeout, hang-up or shutdown)
     * @return the generated images
     */
    GenerationResult generate(GenerationRequest request, GenerationControls controls);
}
