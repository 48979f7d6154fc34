package dev.flux2.onnx.options;

/**
 * The backend option {@code weights}: whether the transformer's block-16 4-bit weight products run as ONNX Runtime's
 * {@code MatMulNBits} on the packed weights or are dequantized in the graph before a {@code MatMul}. Either way the
 * weights' values are the same and only the packed form is resident; the dequantized form needs, per run, transient
 * device memory for the largest dequantized weight and its transpose (2 × 170 MB for klein's 3072 × 27648
 * projection). Which form runs on which provider is decided where the providers are chosen.
 */
public enum WeightsMode {
    /**
     * Dequantized with fp32 products (the packed graph's accuracy) when the first provider is WebGPU, packed
     * elsewhere (the CPU's {@code MatMulNBits} is its fast path); the measurements behind it: docs/fused-attention.md
     * §8.
     */
    AUTO,
    /** Always {@code MatMulNBits} on the packed weights: the graphs as exported. */
    PACKED,
    /** Always dequantized, fp32 products. */
    DEQUANTIZED,
    /** Always dequantized, fp16 products: fastest, less accurate on WebGPU. */
    DEQUANTIZED_FP16
}
