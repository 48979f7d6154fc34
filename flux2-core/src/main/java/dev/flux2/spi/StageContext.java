package dev.flux2.spi;

import dev.flux2.api.Stage;

/**
 * What the pipeline gives a backend for one generation: cancellation, fine-grained progress and runtime timing.
 * Implemented by the pipeline; thread-safe.
 */
public interface StageContext {

    /** @return whether the generation has been cancelled */
    boolean isCancelled();

    /**
     * @param where the stage and position, for the message (for example {@code "vae decoder chunk 3/16"})
     * @throws dev.flux2.api.GenerationCancelledException when cancelled
     */
    void throwIfCancelled(String where);

    /**
     * Registers an action that aborts a running runtime call (for ONNX Runtime: {@code RunOptions.setTerminate}).
     *
     * @param abort idempotent, quick action
     * @return a handle whose {@code close()} unregisters it
     */
    AutoCloseable onCancel(Runnable abort);

    /**
     * Reports progress inside a stage (for example VAE attention chunks).
     *
     * @param stage the stage
     * @param completed units completed
     * @param total units in the stage
     */
    void advance(Stage stage, int completed, int total);

    /** @param nanos time just spent inside one runtime inference call */
    void recordRuntimeNanos(long nanos);
}
