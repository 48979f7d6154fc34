package dev.flux2.spark;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import java.util.concurrent.Semaphore;

/**
 * One executor's pipeline, shared by the tasks of its JVM, with a permit count that bounds the generations running
 * at once. Thread-safe.
 */
final class SharedPipeline {
    private final Flux2Pipeline pipeline;
    private final Semaphore permits;

    SharedPipeline(Flux2Pipeline pipeline, int concurrency) {
        this.pipeline = pipeline;
        this.permits = new Semaphore(concurrency, true);
    }

    /**
     * Waits for a permit (first come, first served), then generates.
     *
     * @param request the request
     * @param controls the task's cancellation token and progress listener
     * @return the result
     * @throws GenerationCancelledException when the task is interrupted while it waits
     */
    GenerationResult generate(GenerationRequest request, GenerationControls controls) {
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GenerationCancelledException(
                    "the task was interrupted while waiting for the executor's pipeline");
        }
        try {
            return pipeline.generate(request, controls);
        } finally {
            permits.release();
        }
    }

    /** Cancels running generations, waits for them and releases the native resources. Idempotent. */
    void close() {
        pipeline.close();
    }
}
