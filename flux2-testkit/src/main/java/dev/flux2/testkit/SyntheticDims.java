package dev.flux2.testkit;

/**
 * Fixed miniature sizes of the synthetic graphs that the spec does not configure.
 */
public final class SyntheticDims {
    /** Channels per latent token (config {@code latent_channels}), as in the real bundle. */
    public static final int LATENT_CHANNELS = 128;
    /** Pixels per latent token side (config {@code latent_downsample}), as in the real bundle. */
    public static final int LATENT_DOWNSAMPLE = 16;
    /** MatMulNBits block size of the q4 bundle (4-bit, asymmetric), and of the padding weight. */
    public static final int Q4_BLOCK_SIZE = 16;
    /** Per-token features the text encoder builds from ids and positions (its MatMulNBits K), at least. */
    public static final int TEXT_FEATURES = 32;
    /** Channels after unpatchify (128 = 32 × 2 × 2), as in the real VAE. */
    public static final int PATCH_CHANNELS = 32;
    /** Channels of the VAE residual at H/8 (512 in the real VAE). */
    public static final int RESIDUAL_CHANNELS = 16;
    /** Output channels of post stage 0 at H/2 (C₀, 256 in the real VAE). */
    public static final int STAGE0_CHANNELS = 8;
    /** Output channels of post stage 1 at H (C₁, 128 in the real VAE). */
    public static final int STAGE1_CHANNELS = 4;
    /** Output channels of post stage 2 at H (C₂, 128 in the real VAE). */
    public static final int STAGE2_CHANNELS = 4;
    /** K of the transformer's padding MatMulNBits (the mean token tiled 16 times). */
    public static final int PADDING_K = 2048;
    /** Bytes one padding output column costs: packed nibbles, fp32 scales and packed zero points. */
    public static final long PADDING_BYTES_PER_COLUMN =
            PADDING_K / 2 + (PADDING_K / Q4_BLOCK_SIZE) * 4L + PADDING_K / Q4_BLOCK_SIZE / 2;

    private SyntheticDims() {}
}
