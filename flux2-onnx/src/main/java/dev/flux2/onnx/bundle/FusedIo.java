package dev.flux2.onnx.bundle;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The resolved fused-transformer graph, or why it cannot be used.
 *
 * @param convention the detected convention ({@link FusedConvention#NONE} when unusable)
 * @param detail for NONE: why (naming the file and the inputs found); otherwise a description of the convention
 * @param steps the number of steps the graph runs
 * @param inputs the shared inputs (absent when NONE)
 * @param timestepInputs ENGINE: {@code timestep_0..k−1}; LISTED: the single {@code timesteps} input
 * @param dtInputs ENGINE: {@code dt_0..k−1}; LISTED: empty
 * @param latent the final-latent output (absent when NONE)
 */
public record FusedIo(
        FusedConvention convention,
        String detail,
        int steps,
        Optional<TransformerInputs> inputs,
        List<TensorSignature> timestepInputs,
        List<TensorSignature> dtInputs,
        Optional<TensorSignature> latent) {

    /** Copies and checks consistency. */
    public FusedIo {
        Objects.requireNonNull(convention, "convention");
        Objects.requireNonNull(detail, "detail");
        timestepInputs = List.copyOf(timestepInputs);
        dtInputs = List.copyOf(dtInputs);
        if (convention != FusedConvention.NONE && (inputs.isEmpty() || latent.isEmpty())) {
            throw new IllegalArgumentException("a usable fused graph needs its inputs and latent output");
        }
    }

    /**
     * @param steps the graph's step count
     * @param why why it cannot be used
     * @return an unusable fused graph
     */
    static FusedIo unusable(int steps, String why) {
        return new FusedIo(FusedConvention.NONE, why, steps, Optional.empty(), List.of(), List.of(), Optional.empty());
    }

    /** @return whether the graph can be run */
    public boolean usable() {
        return convention != FusedConvention.NONE;
    }
}
