package dev.flux2.onnx.options;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} (in a derived graph) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate: nowhere yet. On WebGPU (an H200 on 2026-12-02, with the
     * dequantized weights that {@link WeightsMode#AUTO} picks there) fused is 2.4× faster at 1024² and 0.88× at 512²,
     * but its accuracy is not settled (docs/fused-attention.md §8: the synthetic bundles' images on lavapipe are 3–9
     * levels from the CPU's fused, at most 1 with the graph); the 2-core CPU was inconclusive at 1024² on 2026-12-01;
     * CUDA is not measured. Which provider fuses is decided where the providers are chosen.
     */
    AUTO,
    /** Always fused. */
    FUSED,
    /** Never fused: the graphs as exported. */
    GRAPH
}
