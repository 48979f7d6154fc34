package dev.flux2.onnx.options;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} (in a derived graph) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate: nowhere yet (the evidence, per provider:
     * docs/fused-attention.md §4 and §8). Which provider fuses is decided where the providers are chosen.
     */
    AUTO,
    /** Always fused. */
    FUSED,
    /** Never fused: the graphs as exported. */
    GRAPH
}
