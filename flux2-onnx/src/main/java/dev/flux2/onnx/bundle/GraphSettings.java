package dev.flux2.onnx.bundle;

import dev.flux2.onnx.options.OptimizationLevel;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Optional per-graph settings of a model entry.
 *
 * @param activationDtype {@code activation_dtype}, descriptive only: the element types fed and read are the ones
 *     the graph declares
 * @param chunkSize {@code chunk_size} of the VAE attention-chunk graph (query rows per call)
 * @param headDim {@code head_dim} of the VAE attention-chunk graph
 * @param fusedSteps {@code fused_steps} of a fused multi-step denoiser graph
 * @param graphOptimizationLevel {@code graph_optimization_level} for this graph's sessions
 */
public record GraphSettings(
        Optional<String> activationDtype,
        OptionalInt chunkSize,
        OptionalInt headDim,
        OptionalInt fusedSteps,
        Optional<OptimizationLevel> graphOptimizationLevel) {

    /** Checks for nulls. */
    public GraphSettings {
        Objects.requireNonNull(activationDtype, "activationDtype");
        Objects.requireNonNull(chunkSize, "chunkSize");
        Objects.requireNonNull(headDim, "headDim");
        Objects.requireNonNull(fusedSteps, "fusedSteps");
        Objects.requireNonNull(graphOptimizationLevel, "graphOptimizationLevel");
    }
}
