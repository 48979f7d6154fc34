package dev.flux2.testkit;

/**
 * Ways a legitimate bundle of the family can differ from the seed layout without changing the math
 * (docs/bundle-format.md §3 to §10). Each is switched on with {@link SyntheticBundleSpec.Builder#variant}; the
 * {@link SyntheticReference} is unaffected by all of them except {@link #ZERO_PADDED_CONTEXT}.
 */
public enum BundleVariant {
    /** Every symbolic dimension is written as the fixed size of the default resolution (a static export). */
    STATIC_SHAPES,
    /** {@code x_ids}/{@code ctx_ids} are declared [T, 4] instead of [1, T, 4] (newer diffusers exports). */
    IDS_WITHOUT_BATCH,
    /** {@code timesteps} of the per-step transformer is declared as a rank-0 scalar instead of [1]. */
    SCALAR_TIMESTEP,
    /** The text encoder takes {@code position_ids} [1, L] (0..L−1) instead of computing the positions itself. */
    TEXT_POSITION_IDS,
    /**
     * The first post-attention graph declares its inputs as [attention, residual] (the reverse of the seed), and
     * the config names them with {@code attn_input}/{@code residual_input} (unless {@link #NO_CONFIG_TENSOR_NAMES}).
     */
    REVERSED_STAGE_ZERO_INPUTS,
    /** Each manifest lists its shards in reverse order. */
    REVERSED_MANIFESTS,
    /** The config's model entries carry no {@code inputs}/{@code outputs}/{@code residual_input}/{@code attn_input}. */
    NO_CONFIG_TENSOR_NAMES,
    /** Inline graphs' {@code shards} hold only {@code onnx_bytes} (no {@code count}/{@code total_bytes}). */
    MINIMAL_INLINE_SHARDS,
    /** The config sets {@code zero_padded_context: true}: context rows of padding tokens are zeroed. */
    ZERO_PADDED_CONTEXT,
    /** hlhc layout: the tokenizer files sit beside the graphs instead of in {@code tokenizer/}. */
    TOKENIZER_BESIDE_GRAPHS,
    /**
     * hlhc layout: a {@code config.json} like hlhc's (template, id conventions, schedule, reference convention)
     * whose keys this SDK does not know, and values that would be wrong if it read them.
     */
    UNKNOWN_CONFIG_JSON
}
