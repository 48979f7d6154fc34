package dev.flux2.onnx.options;

/** How the split VAE decoder computes its single-head attention: the backend option {@code vae_attention}. */
public enum VaeAttentionMode {
    /** Whole-sequence attention when the score matrix fits {@code 64 MiB} of fp16, chunked otherwise. */
    AUTO,
    /** Query rows in chunks of the configured chunk size (the last chunk zero-padded); lowest memory. */
    CHUNKED,
    /** One attention call over the whole sequence: fastest, needs S²·2 bytes for the scores (S = (H/8)(W/8)). */
    WHOLE
}
