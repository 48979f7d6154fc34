package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import java.util.LinkedHashMap;
import java.util.Map;

/** Shapes of tensors about to be fed, for pinning symbolic dimensions. Stateless. */
final class Shapes {
    private Shapes() {
    }

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
}
