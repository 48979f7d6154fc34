package dev.flux2.testkit;

/**
 * Which input convention the synthetic fused 4-step transformer graph uses (docs/bundle-format.md §9), or none.
 */
public enum FusedConvention {
    /** No {@code transformer_fused_4step} graph is written. */
    NONE,
    /**
     * The browser engine's convention: inputs {@code x, x_ids, ctx, ctx_ids}, {@code timestep_0..3} (fp16 [1],
     * σ_i) and {@code dt_0..3} (fp32 [1], σ_{i+1} − σ_i); output {@code latent}.
     */
    ENGINE,
    /**
     * The convention the seed config lists: inputs {@code x, x_ids, timesteps, ctx, ctx_ids} with
     * {@code timesteps} fp16 [4] = σ_0..σ_3 (the final σ_4 is 0); output {@code latent}.
     */
    LISTED
}
