package dev.flux2.onnx.bundle;

/** How a fused multi-step transformer graph takes its schedule (docs/bundle-format.md §9). */
public enum FusedConvention {
    /** No usable fused graph: absent, or inputs matching neither convention. */
    NONE,
    /** The browser engine's: {@code timestep_0..k−1} (σ_i) and {@code dt_0..k−1} (σ_{i+1} − σ_i), one value each. */
    ENGINE,
    /** The config's listing: one {@code timesteps} input of fixed length k (σ_0..σ_{k−1}) or k+1 (with the final 0). */
    LISTED
}
