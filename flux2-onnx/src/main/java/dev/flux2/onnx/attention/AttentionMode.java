package dev.flux2.onnx.attention;

import ai.onnxruntime.OrtProvider;
import java.util.List;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} ({@link AttentionFuser}) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate. Measured (docs/fused-attention.md §5): nowhere yet (WebGPU on
     * an H200 0.94× at 512², 1.05× at 1024² and less accurate than the graph on 2026-12-02; the 2-core CPU
     * inconclusive at 1024² on 2026-12-01), so it runs the graph on every provider.
     */
    AUTO,
    /** Always fused. */
    FUSED,
    /** Never fused: the graphs as exported. */
    GRAPH;

    /**
     * @param providers the session's execution providers, in order of preference
     * @return whether attention is fused
     */
    public boolean fuses(List<OrtProvider> providers) {
        return switch (this) {
            case FUSED -> true;
            case GRAPH -> false;
            // No provider is measured both faster and accurate fused (docs/fused-attention.md §5): WebGPU's step was
            // 0.94x at 512² and 1.05x at 1024² with either layout, its flash shader 1.7e-2 from exact where the graph
            // is 4.2e-3; the CPU's 1.41x at 512² but 0.94x (inconclusive) at 1024²; CUDA not measurable here. A
            // provider joins here once it is.
            case AUTO -> false;
        };
    }
}
