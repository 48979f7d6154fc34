package dev.flux2.onnx.bundle;

import java.util.List;
import java.util.Objects;

/**
 * A single-graph VAE decoder ({@code models.vae_decoder}): latent z [1, 128, H/16, W/16] → image [1, 3, H, W] in
 * [−1, 1], with de-normalisation and unpatchify inside the graph as in the split chain's pre stage.
 *
 * @param key the config key
 * @param z the latent input
 * @param image the image output
 */
public record UnifiedDecoderIo(String key, TensorSignature z, TensorSignature image) implements DecoderIo {
    /** Checks for nulls. */
    public UnifiedDecoderIo {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(z, "z");
        Objects.requireNonNull(image, "image");
    }

    @Override
    public List<String> graphKeys() {
        return List.of(key);
    }
}
