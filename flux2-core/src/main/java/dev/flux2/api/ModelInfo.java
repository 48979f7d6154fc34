package dev.flux2.api;

import java.util.Objects;

/**
 * What a loaded model is and which defaults it implies. Values come from the bundle's configuration.
 *
 * @param variant the bundle's variant label (for example {@code klein-4b-distilled-onnx-webgpu-q4})
 * @param distilled true for the step-distilled klein (one transformer pass per step, guidance ignored); false for
 *     base klein (true classifier-free guidance with the empty negative prompt when guidance &gt; 1)
 * @param defaultSteps steps used when a request does not set them
 * @param defaultGuidance guidance used when a request does not set it
 * @param defaultWidth width in pixels used when a request does not set it (a multiple of 16)
 * @param defaultHeight height in pixels used when a request does not set it (a multiple of 16)
 * @param textSequenceLength number of text tokens the encoder takes (512 for klein)
 * @param supportsImageInput whether the bundle has a VAE encoder (needed for init and reference images)
 * @param fusedSteps step count of the fused denoiser graph the backend will use, or 0 when the bundle has none or a
 *     backend option turned it off
 */
public record ModelInfo(
        String variant,
        boolean distilled,
        int defaultSteps,
        double defaultGuidance,
        int defaultWidth,
        int defaultHeight,
        int textSequenceLength,
        boolean supportsImageInput,
        int fusedSteps) {

    /** Validates the values. */
    public ModelInfo {
        Objects.requireNonNull(variant, "variant");
        if (defaultSteps < 1 || defaultWidth < 16 || defaultHeight < 16 || textSequenceLength < 1) {
            throw new IllegalArgumentException("invalid model defaults: steps=" + defaultSteps + " size=" + defaultWidth
                    + "x" + defaultHeight + " textSequenceLength=" + textSequenceLength);
        }
    }
}
