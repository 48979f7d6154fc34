package dev.flux2.onnx.lora;

/**
 * The layouts of FLUX.2 LoRA files in the wild, told apart as diffusers' {@code Flux2LoraLoaderMixin.lora_state_dict}
 * does (docs/pipeline-reference.md, LoRA).
 */
public enum LoraFormat {
    /** diffusers/PEFT names: {@code transformer.transformer_blocks.N.attn.to_q.lora_A.weight}; scale from metadata. */
    DIFFUSERS,
    /**
     * BFL / ai-toolkit names ({@code diffusion_model.double_blocks.N.img_attn.qkv.lora_A.weight}, fused q/k/v), also
     * PEFT's {@code base_model.model.} prefix, which diffusers reads as this layout.
     */
    BFL,
    /** kohya sd-scripts: {@code lora_unet_double_blocks_N_img_attn_qkv.lora_down.weight} with {@code .alpha}. */
    KOHYA
}
