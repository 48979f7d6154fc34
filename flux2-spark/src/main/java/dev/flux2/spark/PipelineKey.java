package dev.flux2.spark;

import java.util.Map;

/**
 * What identifies an executor's shared pipeline: the model and every option its build and sharing depend on.
 *
 * @param model the model as given in {@link BatchOptions#model()}
 * @param concurrency generations at once
 * @param backendOptions backend options
 * @param hubCacheDir the hub cache folder for a repo id, or null for the environment's
 * @param hubEndpoint the hub endpoint for a repo id, or null for the environment's
 */
record PipelineKey(
        String model, int concurrency, Map<String, String> backendOptions, String hubCacheDir, String hubEndpoint) {
    PipelineKey {
        backendOptions = Map.copyOf(backendOptions);
    }

    /**
     * @param options batch options
     * @return their pipeline key
     */
    static PipelineKey of(BatchOptions options) {
        return new PipelineKey(
                options.model(),
                options.concurrency(),
                options.backendOptions(),
                options.hubCacheDir(),
                options.hubEndpoint());
    }
}
