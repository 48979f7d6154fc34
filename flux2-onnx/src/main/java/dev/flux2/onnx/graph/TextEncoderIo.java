package dev.flux2.onnx.graph;

import java.util.Objects;

/**
 * The resolved tensors of the text encoder graph.
 *
 * @param inputIds int64 token ids [1, text_seq]
 * @param attentionMask int64 mask [1, text_seq]
 * @param ctx the context output [1, text_seq, context_dim]
 */
public record TextEncoderIo(TensorSignature inputIds, TensorSignature attentionMask, TensorSignature ctx) {
    /** Checks for nulls. */
    public TextEncoderIo {
        Objects.requireNonNull(inputIds, "inputIds");
        Objects.requireNonNull(attentionMask, "attentionMask");
        Objects.requireNonNull(ctx, "ctx");
    }
}
