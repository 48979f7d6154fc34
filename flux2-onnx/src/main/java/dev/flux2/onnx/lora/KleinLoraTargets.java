package dev.flux2.onnx.lora;

import java.util.regex.Pattern;

/**
 * The linear layers of diffusers' {@code Flux2Transformer2DModel} (src/diffusers/models/transformers/
 * transformer_flux2.py @58eb52c) that a LoRA may adapt, by module path. Which of them a given export holds, and
 * their widths, is decided against the graph when the adapter is applied; this class only tells a transformer
 * layer from a key that maps to nothing (another model's layer, a text-encoder layer, an unknown layout).
 */
final class KleinLoraTargets {
    private static final Pattern TARGET = Pattern.compile(String.join(
            "|",
            "transformer_blocks\\.\\d+\\.attn\\.(to_q|to_k|to_v|to_out\\.0|add_q_proj|add_k_proj|add_v_proj|to_add_out)",
            "transformer_blocks\\.\\d+\\.(ff|ff_context)\\.(linear_in|linear_out)",
            "single_transformer_blocks\\.\\d+\\.attn\\.(to_qkv_mlp_proj|to_out)",
            "x_embedder",
            "context_embedder",
            "proj_out",
            "norm_out\\.linear",
            "time_guidance_embed\\.(timestep_embedder|guidance_embedder)\\.linear_[12]",
            "(double_stream_modulation_img|double_stream_modulation_txt|single_stream_modulation)\\.linear"));

    private KleinLoraTargets() {}

    /**
     * @param module a module path without the {@code transformer.} prefix
     * @return true when it names a linear layer of the FLUX.2 transformer
     */
    static boolean isTarget(String module) {
        return TARGET.matcher(module).matches();
    }
}
