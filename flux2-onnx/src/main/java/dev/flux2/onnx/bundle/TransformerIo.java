package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * The resolved tensors of the per-step transformer graph.
 *
 * @param inputs the latent, ids and context inputs
 * @param timesteps σ as the graph takes it (σ in [0, 1], not ×1000)
 * @param pred the velocity output [1, seq, 128]
 */
public record TransformerIo(TransformerInputs inputs, TensorSignature timesteps, TensorSignature pred) {
    /** Checks for nulls. */
    public TransformerIo {
        Objects.requireNonNull(inputs, "inputs");
        Objects.requireNonNull(timesteps, "timesteps");
        Objects.requireNonNull(pred, "pred");
    }
}
