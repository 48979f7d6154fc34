/**
 * LoRA adapters for the FLUX.2 transformer: {@link dev.flux2.onnx.lora.LoraFiles} reads a safetensors LoRA file in
 * diffusers', BFL/ai-toolkit's or kohya's layout into per-layer low-rank updates with diffusers' scale rules
 * (docs/pipeline-reference.md, LoRA).
 */
package dev.flux2.onnx.lora;
