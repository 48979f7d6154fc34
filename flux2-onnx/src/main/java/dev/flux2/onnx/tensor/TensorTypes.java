package dev.flux2.onnx.tensor;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import dev.flux2.onnx.bundle.ElementType;

/** Maps between the graph's {@link ElementType} and ONNX Runtime's {@link OnnxJavaType}. Stateless. */
public final class TensorTypes {
    private TensorTypes() {}

    /**
     * @param type an element type this SDK feeds or reads
     * @return ONNX Runtime's name for it
     * @throws IllegalArgumentException for a type without an ONNX Runtime Java equivalent here
     */
    static OnnxJavaType javaType(ElementType type) {
        return switch (type) {
            case FLOAT -> OnnxJavaType.FLOAT;
            case FLOAT16 -> OnnxJavaType.FLOAT16;
            case BFLOAT16 -> OnnxJavaType.BFLOAT16;
            case DOUBLE -> OnnxJavaType.DOUBLE;
            case INT64 -> OnnxJavaType.INT64;
            case INT32 -> OnnxJavaType.INT32;
            case INT16 -> OnnxJavaType.INT16;
            case INT8 -> OnnxJavaType.INT8;
            case UINT8 -> OnnxJavaType.UINT8;
            case BOOL -> OnnxJavaType.BOOL;
            default -> throw new IllegalArgumentException("unsupported tensor element type " + type);
        };
    }

    /**
     * @param tensor a tensor
     * @return its element type ({@link ElementType#UNDEFINED} for types this SDK never reads)
     */
    public static ElementType of(OnnxTensor tensor) {
        return switch (tensor.getInfo().type) {
            case FLOAT -> ElementType.FLOAT;
            case FLOAT16 -> ElementType.FLOAT16;
            case BFLOAT16 -> ElementType.BFLOAT16;
            case DOUBLE -> ElementType.DOUBLE;
            case INT64 -> ElementType.INT64;
            case INT32 -> ElementType.INT32;
            case INT16 -> ElementType.INT16;
            case INT8 -> ElementType.INT8;
            case UINT8 -> ElementType.UINT8;
            case BOOL -> ElementType.BOOL;
            default -> ElementType.UNDEFINED;
        };
    }
}
