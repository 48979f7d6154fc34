package dev.flux2.onnx.stage;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.VaeAttentionMode;

/**
 * The VAE attention plan: how the VAE decoder's single-head attention over S = (H/8)(W/8) positions is computed: in one call over the
 * whole sequence, or in chunks of query rows (each query row is independent, so chunks give the same result).
 *
 * @param rows query rows per call (S when whole)
 * @param whole whether one call covers the whole sequence
 */
public record VaeAttentionPlan(int rows, boolean whole) {
    /** {@link VaeAttentionMode#AUTO} runs whole attention while the fp16 score matrix stays within this. */
    public static final long AUTO_WHOLE_SCORE_BYTES = 64L << 20;
    /** Chunk rows when neither the user nor the bundle sets {@code chunk_size}. */
    public static final int DEFAULT_CHUNK_ROWS = 1024;

    /** Validates. */
    public VaeAttentionPlan {
        if (rows < 1) {
            throw new IllegalArgumentException("attention rows must be >= 1, got " + rows);
        }
    }

    /** @param s the sequence length S @return the number of calls */
    int chunks(int s) {
        return whole ? 1 : (s + rows - 1) / rows;
    }

    /**
     * Checks at load time that the requested mode and chunk size fit the attention graph.
     *
     * @param mode the requested mode
     * @param requestedRows the user's chunk size, 0 for the bundle's
     * @param fixedRows the graph's fixed chunk dimension, or -1 when free
     * @throws ModelLoadException when the graph fixes the chunk rows to another value
     */
    public static void checkCompatible(VaeAttentionMode mode, int requestedRows, long fixedRows) {
        if (fixedRows < 0) {
            return;
        }
        if (mode == VaeAttentionMode.WHOLE) {
            throw new ModelLoadException("backend option vae_attention=whole needs an attention-chunk graph with a "
                    + "free chunk dimension, but vae_decoder_attn_chunk fixes it to " + fixedRows + " rows; use auto or"
                    + " chunked");
        }
        if (requestedRows > 0 && requestedRows != fixedRows) {
            throw new ModelLoadException("backend option vae_chunk_size=" + requestedRows + " does not fit "
                    + "vae_decoder_attn_chunk, whose chunk dimension is fixed to " + fixedRows + " rows");
        }
    }

    /**
     * @param mode the requested mode
     * @param chunkRows rows per chunk (the user's, else the bundle's {@code chunk_size})
     * @param fixedRows the graph's fixed chunk dimension, or -1 when free
     * @param s the sequence length S
     * @return the plan for this decode
     */
    static VaeAttentionPlan choose(VaeAttentionMode mode, int chunkRows, long fixedRows, int s) {
        if (fixedRows >= 0) {
            return fixedRows == s ? new VaeAttentionPlan(s, true) : new VaeAttentionPlan((int) fixedRows, false);
        }
        boolean whole = switch (mode) {
            case WHOLE -> true;
            case CHUNKED -> chunkRows >= s;
            case AUTO -> (long) s * s * 2 <= AUTO_WHOLE_SCORE_BYTES || chunkRows >= s;
        };
        return whole ? new VaeAttentionPlan(s, true) : new VaeAttentionPlan(chunkRows, false);
    }
}
