package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * The inputs a per-step and a fused transformer share.
 *
 * @param x the latent tokens [1, seq, 128]
 * @param xIds the position ids of the latent tokens [1, seq, 4]
 * @param ctx the text context [1, text_seq, context_dim]
 * @param ctxIds the text ids [1, text_seq, 4]
 */
public record TransformerInputs(TensorSignature x, TensorSignature xIds, TensorSignature ctx, TensorSignature ctxIds) {

    /** Checks for nulls. */
    public TransformerInputs {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(xIds, "xIds");
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(ctxIds, "ctxIds");
    }
}
