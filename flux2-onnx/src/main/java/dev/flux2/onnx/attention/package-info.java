/**
 * Fused attention: recognising the attention subgraphs of a graph by their structure (q·kᵀ, an optional scalar
 * scale, Softmax over the last axis, an optional Cast, ·v) and replacing each with ONNX Runtime's
 * {@code com.microsoft.MultiHeadAttention}, computed in fp32. Applied by {@code dev.flux2.onnx.tuning}'s derived
 * graphs (backend option {@code attention}); described in docs/fused-attention.md.
 */
package dev.flux2.onnx.attention;
