package dev.flux2.onnx.weights;

import ai.onnxruntime.OrtProvider;
import java.util.List;

/**
 * The backend option {@code weights}: whether the transformer's block-16 4-bit weight products run as ONNX Runtime's
 * {@code MatMulNBits} on the packed weights or are dequantized in the graph before a {@code MatMul}
 * ({@link WeightDequantizer}, {@link WeightForm}). Either way the weights' values are the same and only the packed form is resident;
 * the dequantized form needs, per run, transient device memory for the largest dequantized weight and its
 * transpose (2 × 170 MB for klein's 3072 × 27648 projection).
 */
public enum WeightsMode {
    /**
     * {@link WeightForm#DEQUANTIZED} (fp32 products, the packed graph's accuracy) when the first provider is WebGPU,
     * packed elsewhere (the CPU's {@code MatMulNBits} is its fast path). Measured on an H200, 2026-12-02, 5+20-block
     * step (docs/fused-attention.md §8): 512² 2.05 s → 0.98 s; 1024² 7.1 s → 7.6 s with the graph's attention (one
     * pair; its wall time is then the score buffers', not the products'), 7.0 s → 3.2 s with fused attention.
     */
    AUTO,
    /** Always {@code MatMulNBits} on the packed weights: the graphs as exported. */
    PACKED,
    /** Always dequantized, fp32 products ({@link WeightForm#DEQUANTIZED}). */
    DEQUANTIZED,
    /** Always dequantized, fp16 products ({@link WeightForm#DEQUANTIZED_FP16}): fastest, less accurate on WebGPU. */
    DEQUANTIZED_FP16;

    /**
     * @param providers the session's execution providers, in order of preference
     * @return the form of the transformer's block-16 weight products
     */
    public WeightForm form(List<OrtProvider> providers) {
        return switch (this) {
            case PACKED -> WeightForm.PACKED;
            case DEQUANTIZED -> WeightForm.DEQUANTIZED;
            case DEQUANTIZED_FP16 -> WeightForm.DEQUANTIZED_FP16;
            case AUTO ->
                !providers.isEmpty() && providers.get(0) == OrtProvider.WEBGPU
                        ? WeightForm.DEQUANTIZED
                        : WeightForm.PACKED;
        };
    }
}
