package dev.flux2.testkit;

/**
 * Which VAE decoder graphs a synthetic bundle has (docs/bundle-format.md §3.3, §10); all compute the same function.
 */
public enum VaeDecoderLayout {
    /** The seed's split chain: pre, attention chunk, post stages 0..3 listed in {@code vae_decoder_post_stage_keys}. */
    SPLIT,
    /** Pre, attention chunk and one post-attention graph {@code models.vae_decoder_post} (no stage list). */
    SINGLE_POST,
    /** One decoder graph {@code models.vae_decoder}, z → image, and no split keys. */
    UNIFIED,
    /** Both {@code models.vae_decoder} and the complete split chain. */
    UNIFIED_AND_SPLIT
}
