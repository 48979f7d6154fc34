/**
 * Fused attention measured: one attention in the seed's form against ONNX Runtime's fused
 * {@code MultiHeadAttention} ({@link dev.flux2.bench.attention.AttentionBenchmark}), and the timing transformer's
 * step with and without fused attention ({@link dev.flux2.bench.attention.FusedAttentionStepComparison}, CPU or
 * WebGPU). Results: docs/fused-attention.md.
 */
package dev.flux2.bench.attention;
