package dev.flux2.onnx.bundle;

import java.util.Objects;
import java.util.Optional;

/**
 * The resolved tensors of the text encoder graph.
 *
 * @param inputIds token ids [1, text_seq], INT64 or INT32 as the graph declares
 * @param attentionMask the mask [1, text_seq] (1 real token, 0 padding), when the graph takes one
 * @param positionIds position ids [1, text_seq] (0, 1, …), when the graph takes them
 * @param ctx the context output [1, text_seq, context_dim], of the float type the graph declares
 */
public record TextEncoderIo(
        TensorSignature inputIds,
        Optional<TensorSignature> attentionMask,
        Optional<TensorSignature> positionIds,
        TensorSignature ctx) {
    /** Checks for nulls. */
    public TextEncoderIo {
        Objects.requireNonNull(inputIds, "inputIds");
        Objects.requireNonNull(attentionMask, "attentionMask");
        Objects.requireNonNull(positionIds, "positionIds");
        Objects.requireNonNull(ctx, "ctx");
    }
}
