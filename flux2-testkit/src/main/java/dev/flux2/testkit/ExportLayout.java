package dev.flux2.testkit;

/**
 * Which public export a synthetic bundle imitates: its file names, tensor names, dtypes, quantization and how it
 * describes itself (docs/bundle-format.md §14).
 */
public enum ExportLayout {
    /**
     * {@code MarkShark2/flux2-klein-4b-onnx-webgpu-q4}: {@code flux2-config.json}, the q4 file names, fp16 activations,
     * 4-bit block-16 weights in two shards per graph with a manifest, the split VAE decoder (by default).
     */
    MARKSHARK2,
    /**
     * {@code hlhc/FLUX.2-klein-4B-onnx}: no {@code flux2-config.json}; {@code text_encoder.onnx},
     * {@code transformer.onnx}, {@code vae_decoder.onnx} and {@code vae_encoder.onnx}, each with one
     * {@code <graph>.onnx.data} file; its tensor names ({@code prompt_embeds}, {@code hidden_states},
     * {@code encoder_hidden_states}, {@code timestep}, {@code img_ids}, {@code txt_ids}, {@code noise_pred},
     * {@code latents}); batch and text length fixed in the graphs; fp32 activations, int64 ids, a 4-bit block-128 text
     * encoder and an 8-bit block-128 transformer; one VAE decoder graph.
     */
    HLHC
}
