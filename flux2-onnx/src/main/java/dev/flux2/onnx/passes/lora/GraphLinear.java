package dev.flux2.onnx.passes.lora;

/**
 * A linear layer of a graph: a {@code MatMul} or {@code Gemm} whose weight is an initializer, or a
 * {@code MatMulNBits}; found by operator and weight, never by name.
 *
 * @param node the node's index in the graph
 * @param input the activation it multiplies
 * @param output the product (bias included for {@code Gemm})
 * @param inFeatures the weight's input width
 * @param outFeatures the weight's output width
 * @param elementType the ONNX element type of the activations (the weight's, or {@code MatMulNBits}' scales')
 */
public record GraphLinear(int node, String input, String output, int inFeatures, int outFeatures, int elementType) {}
