package dev.flux2.api;

/** The stages of one generation, in the order they run. */
public enum Stage {
    /** Prompt → token ids and attention mask. */
    TOKENIZE,
    /** Token ids → text context (the Qwen3 hidden-state taps). */
    TEXT_ENCODE,
    /** Init and reference images → normalised latents (VAE encoder). */
    VAE_ENCODE,
    /** The transformer loop over the sigma schedule (per step or fused). */
    DENOISE,
    /** Latent tokens → pixels (VAE decoder chain). */
    VAE_DECODE
}
