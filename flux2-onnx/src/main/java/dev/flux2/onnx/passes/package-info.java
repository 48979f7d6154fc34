/**
 * Graph passes, each a {@link dev.flux2.onnx.passes.GraphPass} with its id and version: the MHA fusion ({@link
 * dev.flux2.onnx.passes.MhaFusion}: {@link dev.flux2.onnx.passes.MhaMatcher} finds attention blocks, {@link
 * dev.flux2.onnx.passes.MhaEmitter} writes {@code MultiHeadAttention}), the weight dequantization, fp32 activations
 * and accuracy level 0; {@link dev.flux2.onnx.passes.PassRunner} applies them in one fixed order. Written on {@code
 * dev.flux2.onnx.graph} only (docs/fused-attention.md, docs/performance.md "CPU-tuned graphs").
 */
package dev.flux2.onnx.passes;
