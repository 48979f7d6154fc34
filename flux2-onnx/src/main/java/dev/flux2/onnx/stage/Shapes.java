package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import dev.flux2.onnx.bundle.TensorSignature;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Shapes of tensors about to be fed: read back for pinning symbolic dimensions, and built for inputs whose rank the
 * graph chooses (ids with or without the batch dimension, σ as a scalar or a one-element vector). Stateless.
 */
final class Shapes {
    private Shapes() {}

    /**
     * @param inputs tensors by input name
     * @return their shapes by input name
     */
    static Map<String, long[]> of(Map<String, ? extends OnnxTensorLike> inputs) {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (Map.Entry<String, ? extends OnnxTensorLike> e : inputs.entrySet()) {
            shapes.put(e.getKey(), e.getValue().getInfo().getShape());
        }
        return shapes;
    }

    /**
     * @param ids a position-id input, [1, T, 4] or [T, 4] ([1, T, 4] when the graph declares no shape)
     * @param tokens T
     * @return the shape to feed
     */
    static long[] ids(TensorSignature ids, int tokens) {
        return ids.rank() == 2 ? new long[] {tokens, 4} : new long[] {1, tokens, 4};
    }

    /**
     * @param input an input holding one value (rank 0, or rank 1 of size 1; [1] when the graph declares no shape)
     * @return the shape to feed
     */
    static long[] singleValue(TensorSignature input) {
        long[] shape = new long[input.rankKnown() ? input.rank() : 1];
        Arrays.fill(shape, 1);
        return shape;
    }

    /**
     * @param input an input whose dimensions are all fixed
     * @return its shape
     */
    static long[] fixed(TensorSignature input) {
        long[] shape = new long[input.rank()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = input.dim(i).value();
        }
        return shape;
    }
}
