package dev.flux2.onnx.attention;

import ai.onnxruntime.OrtProvider;
import java.util.List;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} ({@link AttentionFuser}) or as the graph writes it.
 */
public enum AttentionMode {
    /**
     * Fused where it is measured faster and accurate. Measured on 2026-12-01 (docs/fused-attention.md): nowhere yet
     * (WebGPU on an H200 no faster and further from the graph's prediction, the 2-core CPU inconclusive at 1024²), so
     * it runs the graph on every provider.
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
            // 0.94x at 512² and 1.00x at 1024², the CPU's 1.41x at 512² but 0.94x (inconclusive) at 1024², CUDA
            // not measurable here. A provider joins here once it is.
            case AUTO -> false;
        };
    }
}
