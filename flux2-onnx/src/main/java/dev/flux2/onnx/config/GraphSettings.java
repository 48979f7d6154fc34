package dev.flux2.onnx.config;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Optional per-graph settings of a model entry.
 *
 * @param activationDtype {@code activation_dtype}; {@code float32}/{@code fp32} switches the float activations
 *     ({@code x}, {@code timesteps}, {@code ctx}, VAE tensors) from fp16 to fp32
 * @param chunkSize {@code chunk_size} of the VAE attention-chunk graph (query rows per call)
 * @param headDim {@code head_dim} of the VAE attention-chunk graph
 * @param fusedSteps {@code fused_steps} of a fused multi-step denoiser graph
 * @param graphOptimizationLevel {@code graph_optimization_level} for this graph's sessions
 */
public record GraphSettings(Optional<String> activationDtype, OptionalInt chunkSize, OptionalInt headDim,
        OptionalInt fusedSteps, Optional<String> graphOptimizationLevel) {

    /** Checks for nulls. */
    public GraphSettings {
        Objects.requireNonNull(activationDtype, "activationDtype");
        Objects.requireNonNull(chunkSize, "chunkSize");
        Objects.requireNonNull(headDim, "headDim");
        Objects.requireNonNull(fusedSteps, "fusedSteps");
        Objects.requireNonNull(graphOptimizationLevel, "graphOptimizationLevel");
    }

    /** @return whether float activations are fp32 rather than the bundle's default fp16 */
    public boolean fp32Activations() {
        return activationDtype.map(d -> d.equalsIgnoreCase("float32") || d.equalsIgnoreCase("fp32"))
                .orElse(false);
    }
}
