/**
 * Weight forms for providers whose quantized kernels are slow at a bundle's block size: {@link
 * dev.flux2.onnx.weights.WeightDequantizer} replaces 4-bit {@code MatMulNBits} by an in-graph
 * {@code DequantizeLinear} and {@code MatMul} over the same packed initializers (docs/fused-attention.md §8).
 */
package dev.flux2.onnx.weights;
