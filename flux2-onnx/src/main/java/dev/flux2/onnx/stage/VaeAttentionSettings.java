package dev.flux2.onnx.stage;

import dev.flux2.onnx.options.VaeAttentionMode;
import java.util.Objects;

/**
 * The VAE attention mode and chunk size in effect.
 *
 * @param mode whole, chunked or automatic
 * @param chunkRows query rows per chunk (the option {@code vae_chunk_size}, else the bundle's {@code chunk_size})
 */
public record VaeAttentionSettings(VaeAttentionMode mode, int chunkRows) {
    /** Validates. */
    public VaeAttentionSettings {
        Objects.requireNonNull(mode, "mode");
        if (chunkRows < 1) {
            throw new IllegalArgumentException("chunkRows must be >= 1, got " + chunkRows);
        }
    }
}
