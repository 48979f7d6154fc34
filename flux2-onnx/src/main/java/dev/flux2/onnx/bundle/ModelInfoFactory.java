package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelInfo;

/** Derives {@link ModelInfo} from a checked bundle. Stateless. */
public final class ModelInfoFactory {
    private ModelInfoFactory() {}

    /**
     * @param config the config
     * @param io the checked graphs
     * @param fusedEnabled false when the backend option {@code fused=off} turned fused graphs off
     * @return the model's identity and defaults; {@code fusedSteps} is the fused graph's step count when the bundle
     *     has a usable one and fused graphs are enabled, else 0
     */
    public static ModelInfo of(BundleConfig config, BundleIo io, boolean fusedEnabled) {
        ModelDefaults d = config.defaults();
        int fusedSteps = fusedEnabled
                ? io.fused().filter(FusedIo::usable).map(FusedIo::steps).orElse(0)
                : 0;
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
