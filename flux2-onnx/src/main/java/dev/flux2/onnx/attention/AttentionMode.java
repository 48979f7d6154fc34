package dev.flux2.onnx.attention;

import ai.onnxruntime.OrtProvider;
import java.util.List;

/**
 * The backend option {@code attention}: whether the transformer's and the VAE decoder's attention runs as ONNX
 * Runtime's fused {@code MultiHeadAttention} ({@link AttentionFuser}) or as the graph writes it.
 */
public enum AttentionMode {
    /** Fused where it is measured faster and accurate: on WebGPU (docs/fused-attention.md); the graph elsewhere. */
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
            // The first provider runs (nearly) every node; only WebGPU is measured faster fused. The CPU at 2 cores
            // is not (docs/fused-attention.md), and CUDA cannot be measured here.
            case AUTO -> !providers.isEmpty() && providers.get(0) == OrtProvider.WEBGPU;
        };
    }
}
