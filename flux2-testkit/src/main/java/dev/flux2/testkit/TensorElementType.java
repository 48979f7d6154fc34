package dev.flux2.testkit;

/**
 * ONNX tensor element types the synthetic graphs declare (a small subset of {@code TensorProto.DataType}).
 */
public enum TensorElementType {
    /** 32-bit float. */
    FLOAT(1),
    /** Unsigned byte. */
    UINT8(2),
    /** Signed byte. */
    INT8(3),
    /** 16-bit integer. */
    INT16(5),
    /** 32-bit integer. */
    INT32(6),
    /** 64-bit integer. */
    INT64(7),
    /** Boolean. */
    BOOL(9),
    /** IEEE half precision. */
    FLOAT16(10),
    /** 64-bit float. */
    DOUBLE(11),
    /** bfloat16. */
    BFLOAT16(16);

    private final int onnxCode;

    TensorElementType(int onnxCode) {
        this.onnxCode = onnxCode;
    }

    /** @return the {@code TensorProto.DataType} number */
    public int onnxCode() {
        return onnxCode;
    }
}
