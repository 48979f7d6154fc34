package dev.flux2.onnx.bundle;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether this backend may run a fused multi-step transformer at all: decided once, when the bundle is opened, from
 * the backend option {@code fused} and the bundle's fused graph. What the model reports ({@link ModelInfoFactory}),
 * what the backend opens ahead and what each denoiser session answers all read this one decision; a generation then
 * only checks what is its own (its step count, reference tokens and image size). Immutable.
 *
 * @param graph the fused graph, when it may run
 * @param reason why it may not, or its convention and description when it may
 */
public record FusedChoice(Optional<FusedIo> graph, String reason) {
    /** Validates. */
    public FusedChoice {
        Objects.requireNonNull(graph, "graph");
        Objects.requireNonNull(reason, "reason");
        if (graph.isPresent() && !graph.get().usable()) {
            throw new IllegalArgumentException(
                    "an unusable fused graph cannot be chosen: " + graph.get().detail());
        }
    }

    /**
     * @param enabled false when the backend option {@code fused=off} turned fused graphs off
     * @param io the bundle's checked graphs
     * @return the decision
     */
    public static FusedChoice of(boolean enabled, BundleIo io) {
        if (!enabled) {
            return new FusedChoice(Optional.empty(), "fused graphs are disabled by the backend option fused=off");
        }
        if (io.fused().isEmpty()) {
            return new FusedChoice(Optional.empty(), "the bundle has no " + GraphKeys.TRANSFORMER_FUSED + " graph");
        }
        FusedIo fused = io.fused().get();
        if (!fused.usable()) {
            return new FusedChoice(Optional.empty(), fused.detail());
        }
        return new FusedChoice(
                Optional.of(fused), fused.convention().name().toLowerCase(Locale.ROOT) + ": " + fused.detail());
    }

    /** @return whether a fused graph may run */
    public boolean usable() {
        return graph.isPresent();
    }

    /** @return the steps the fused graph runs, 0 when none may run */
    public int steps() {
        return graph.map(FusedIo::steps).orElse(0);
    }
}
