package dev.flux2.onnx;

import dev.flux2.api.ModelInfo;
import dev.flux2.onnx.config.BundleConfig;
import dev.flux2.onnx.config.ModelDefaults;
import dev.flux2.onnx.graph.BundleIo;
import dev.flux2.onnx.graph.FusedIo;

/** Derives {@link ModelInfo} from a checked bundle. Stateless. */
final class ModelInfoFactory {
    private ModelInfoFactory() {}

    /**
     * @param config the config
     * @param io the checked graphs
     * @return the model's identity and defaults; {@code fusedSteps} is the fused graph's step count when the bundle
     *     has a usable one, else 0
     */
    static ModelInfo of(BundleConfig config, BundleIo io) {
        ModelDefaults d = config.defaults();
        int fusedSteps = io.fused().filter(FusedIo::usable).map(FusedIo::steps).orElse(0);
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
