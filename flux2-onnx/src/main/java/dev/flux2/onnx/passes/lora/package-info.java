/**
 * The linear layers of a FLUX.2 transformer graph named by structure ({@link dev.flux2.onnx.passes.lora.KleinGraphLayers})
 * and the graph inputs of their LoRA branches ({@link dev.flux2.onnx.passes.lora.LoraSlot}), for the
 * {@code lora-branches} pass.
 */
package dev.flux2.onnx.passes.lora;
