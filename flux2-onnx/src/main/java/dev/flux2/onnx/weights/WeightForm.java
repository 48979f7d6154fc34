package dev.flux2.onnx.weights;

/** How a derived graph computes the block-16 weight products ({@link WeightDequantizer}). */
public enum WeightForm {
    /** {@code MatMulNBits} on the packed weights, as exported. */
    PACKED(""),
    /**
     * Dequantized in the graph, the product computed in fp32 (fp16 activations and scales cast to fp32): the packed
     * graph's accuracy on WebGPU (docs/fused-attention.md §8).
     */
    DEQUANTIZED("-dq"),
    /**
     * Dequantized in the graph, the product an fp16 {@code MatMul}: faster, but WebGPU's fp16 {@code MatMul} adds
     * ≈ 1e-2 relative error to a 25-block step (docs/fused-attention.md §8).
     */
    DEQUANTIZED_FP16("-dq16");

    private final String label;

    WeightForm(String label) {
        this.label = label;
    }

    /** @return the suffix of derived graphs' labels ({@code ""} when packed) */
    public String label() {
        return label;
    }
}
