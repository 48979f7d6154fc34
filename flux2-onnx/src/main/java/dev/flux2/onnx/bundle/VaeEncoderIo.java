package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * The resolved VAE encoder graph.
 *
 * @param image the pixel input [1, 3, H, W] in [−1, 1]
 * @param z the normalised, patchified latent output [1, 128, H/16, W/16]
 */
public record VaeEncoderIo(TensorSignature image, TensorSignature z) {
    /** Checks for nulls. */
    public VaeEncoderIo {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(z, "z");
    }
}
