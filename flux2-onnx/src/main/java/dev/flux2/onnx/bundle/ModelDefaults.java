package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * The bundle's identity and generation defaults.
 *
 * @param modelName {@code model_name}
 * @param variant {@code model_variant}, or the model name when absent
 * @param distilled {@code is_distilled} when given; otherwise false only when the variant or name says "base"
 * @param numSteps {@code num_steps} (default 4 distilled, 50 base)
 * @param guidance {@code guidance} (default 1.0 distilled, 4.0 base)
 * @param width {@code default_width} in pixels (default 1024)
 * @param height {@code default_height} in pixels (default 1024)
 */
public record ModelDefaults(
        String modelName, String variant, boolean distilled, int numSteps, double guidance, int width, int height) {

    /** Checks for nulls. */
    public ModelDefaults {
        Objects.requireNonNull(modelName, "modelName");
        Objects.requireNonNull(variant, "variant");
    }
}
