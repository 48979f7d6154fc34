package dev.flux2.onnx.options;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} (in a derived graph) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate: in fp16 ({@link #FUSED_FP16}) when the first provider is CUDA;
     * on the CPU and WebGPU the graphs as exported (docs/fused-attention.md §8–9 has the measurements). Which
     * provider fuses is decided where the providers are chosen.
     */
    AUTO,
    /** Always fused. */
    FUSED,
    /** Never fused: the graphs as exported. */
    GRAPH,
    /**
     * Always fused, the {@code MultiHeadAttention} node computing in fp16 (q, k, v cast to fp16 before it, its output
     * cast back after): CUDA's fast form, what {@link #AUTO} picks on CUDA. ONNX Runtime's CPU kernel has no fp16
     * form (docs/fused-attention.md §9).
     */
    FUSED_FP16
}
