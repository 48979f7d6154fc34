package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelInfo;

/** Derives {@link ModelInfo} from a checked bundle. Stateless. */
public final class ModelInfoFactory {
    private ModelInfoFactory() {}

    /**
     * @param config the config
     * @param fused whether a fused graph may run
     * @return the model's identity and defaults; {@code fusedSteps} is the fused graph's step count when one may
     *     run, else 0
     */
    public static ModelInfo of(BundleConfig config, FusedChoice fused) {
        ModelDefaults d = config.defaults();
        int fusedSteps = fused.steps();
        return new ModelInfo(
                d.variant(),
                d.distilled(),
                d.numSteps(),
                d.guidance(),
                d.width(),
                d.height(),
                config.text().sequenceLength(),
                config.supportsImageInput(),
                fusedSteps);
    }
}
