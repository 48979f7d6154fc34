package dev.flux2.onnx.passes;

import dev.flux2.onnx.graph.ElementTypes;

/**
 * The element type the fused {@code MultiHeadAttention} computes in: q, k and v are cast to it before the node and
 * its output back to the attention output's type after it.
 */
public enum MhaPrecision {
    /**
     * fp32: the graphs compute scores and softmax in fp32 for accuracy; the CPU's and WebGPU's form
     * (docs/fused-attention.md §2).
     */
    FP32(ElementTypes.FLOAT),
    /** fp16: CUDA's fast form (docs/fused-attention.md §9). */
    FP16(ElementTypes.FLOAT16);

    private final int elementType;

    MhaPrecision(int elementType) {
        this.elementType = elementType;
    }

    /** @return the element type ({@code ElementTypes}) */
    int elementType() {
        return elementType;
    }
}
