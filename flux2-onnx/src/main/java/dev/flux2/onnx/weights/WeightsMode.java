package dev.flux2.onnx.weights;

import ai.onnxruntime.OrtProvider;
import java.util.List;

/**
 * The backend option {@code weights}: whether the transformer's block-16 4-bit weight products run as ONNX Runtime's
 * {@code MatMulNBits} on the packed weights or are dequantized in the graph before an fp16 {@code MatMul}
 * ({@link WeightDequantizer}). Either way the weights' values are the same and only the packed form is resident;
 * the dequantized form needs, per run, transient device memory for the largest dequantized weight and its
 * transpose (2 × 170 MB for klein's 3072 × 27648 projection).
 */
public enum WeightsMode {
    /**
     * Dequantized where measured faster: on WebGPU (an H200, 2026-12-02: 5+20-block step at 512² 2.03 s → 0.67 s,
     * at 1024² with fused attention 7.07 s → 2.54 s; docs/fused-attention.md §8); packed elsewhere (the CPU's
     * {@code MatMulNBits} is its fast path).
     */
    AUTO,
    /** Always {@code MatMulNBits} on the packed weights: the graphs as exported. */
    PACKED,
    /** Always dequantized in the graph. */
    DEQUANTIZED;

    /**
     * @param providers the session's execution providers, in order of preference
     * @return whether the weights are dequantized in the graph
     */
    public boolean dequantizes(List<OrtProvider> providers) {
        return switch (this) {
            case PACKED -> false;
            case DEQUANTIZED -> true;
            case AUTO -> !providers.isEmpty() && providers.get(0) == OrtProvider.WEBGPU;
        };
    }
}
