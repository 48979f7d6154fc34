package dev.flux2.onnx.bundle;

/**
 * The {@code models} keys this backend knows. Post-stage keys come from {@code vae_decoder_post_stage_keys}; any
 * other key is ignored (docs/bundle-format.md §3).
 */
public final class GraphKeys {
    /** Qwen3 text encoder: ids and mask → context. */
    public static final String TEXT_ENCODER = "text_encoder";
    /** Per-step transformer: latent tokens → velocity. */
    public static final String TRANSFORMER = "transformer";
    /** Optional fused multi-step transformer: initial latent → final latent. */
    public static final String TRANSFORMER_FUSED = "transformer_fused_4step";
    /** VAE decoder up to its mid attention: z → residual, q, kᵀ, v. */
    public static final String VAE_DECODER_PRE = "vae_decoder_pre";
    /** Single-head attention over a chunk of query rows. */
    public static final String VAE_DECODER_ATTN_CHUNK = "vae_decoder_attn_chunk";
    /** Optional single-graph VAE decoder: z → image (used instead of the split chain when present). */
    public static final String VAE_DECODER = "vae_decoder";
    /** Optional single post-attention graph: residual + attention → image (instead of the post-stage list). */
    public static final String VAE_DECODER_POST = "vae_decoder_post";
    /** Optional VAE encoder: image → normalised, patchified z. */
    public static final String VAE_ENCODER = "vae_encoder";

    private GraphKeys() {}
}
