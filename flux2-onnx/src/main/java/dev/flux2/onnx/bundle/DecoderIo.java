package dev.flux2.onnx.bundle;

/**
 * How the bundle decodes latents (docs/bundle-format.md §3.3, §10): one unified graph ({@link UnifiedDecoderIo},
 * {@code models.vae_decoder}) or the split chain ({@link VaeDecoderIo}: pre-attention, attention chunk, and either
 * the post stages of {@code vae_decoder_post_stage_keys} or the single {@code models.vae_decoder_post}).
 */
public sealed interface DecoderIo permits UnifiedDecoderIo, VaeDecoderIo {
    /** @return the config keys of the graphs this decoder runs, in run order */
    java.util.List<String> graphKeys();
}
