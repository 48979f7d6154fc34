package dev.flux2.onnx.options;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} (in a derived graph) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate. Measured (docs/fused-attention.md §5): nowhere yet (WebGPU on
     * an H200 0.94× at 512², 1.05× at 1024² and less accurate than the graph on 2026-12-02; the 2-core CPU
     * inconclusive at 1024² on 2026-12-01), so it runs the graph on every provider: which provider fuses is decided
     * where the providers are chosen.
     */
    AUTO,
    /** Always fused. */
    FUSED,
    /** Never fused: the graphs as exported. */
    GRAPH
}
