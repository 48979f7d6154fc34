package dev.flux2.spi;

/**
 * The transformer bound to one generation's token layout. Not thread-safe: one generation uses it at a time.
 */
public interface DenoiserSession extends AutoCloseable {

    /**
     * Predicts the velocity of the N noise tokens (the prediction for reference tokens is discarded).
     *
     * @param step the step, for σ and for error messages
     * @param latentTokens N·128 current latent tokens (fp32; not modified)
     * @param text the text context
     * @param velocityOut receives N·128 velocity values
     */
    void predictVelocity(DenoiseStep step, float[] latentTokens, TextEmbedding text, float[] velocityOut);

    /**
     * @param steps the schedule's step count
     * @return whether {@link #denoiseFused} can run that many steps in one call, and why not
     */
    FusedSupport fusedSupport(int steps);

    /**
     * Runs all steps in one call of the fused graph: the Euler updates happen inside the graph.
     *
     * @param sigmas n+1 sigmas ending with 0
     * @param latentTokens N·128 initial latent tokens; overwritten with the final latent
     * @param text the text context
     */
    void denoiseFused(float[] sigmas, float[] latentTokens, TextEmbedding text);

    /** Releases per-generation resources. Idempotent. */
    @Override
    void close();
}
