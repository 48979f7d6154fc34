package dev.flux2.testkit;

/**
 * The real bundle's tensor names for the split VAE decoder chain (docs/bundle-format.md §10.1).
 */
public final class TensorNames {
    /** Residual output of {@code vae_decoder_pre}, first input of post stage 0. */
    public static final String VAE_RESIDUAL = "/decoder/block_1/Add_output_0";
    /** Scaled query output of {@code vae_decoder_pre} [1,1,S,hd]. */
    public static final String VAE_QUERY = "/decoder/attn_1/Mul_6_output_0";
    /** Scaled, transposed key output of {@code vae_decoder_pre} [1,1,hd,S]. */
    public static final String VAE_KEY_TRANSPOSED = "/decoder/attn_1/Mul_7_output_0";
    /** Value output of {@code vae_decoder_pre} [1,1,S,hd]. */
    public static final String VAE_VALUE = "/decoder/attn_1/Reshape_2_output_0";
    /** Attention result, second input of post stage 0 [1,1,S,hd]. */
    public static final String VAE_ATTENTION = "/decoder/attn_1/MatMul_1_output_0";
    /** Output of post stage 0 [1,C₀,H/2,W/2]. */
    public static final String VAE_STAGE0_OUT = "/decoder/block.2_2/Add_output_0";
    /** Output of post stage 1 [1,C₁,H,W]. */
    public static final String VAE_STAGE1_OUT = "/decoder/block.0_3/Add_output_0";
    /** Output of post stage 2 [1,C₂,H,W]. */
    public static final String VAE_STAGE2_OUT = "/decoder/block.2_3/Add_output_0";

    private TensorNames() {}
}
