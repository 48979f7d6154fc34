package dev.flux2.onnx.bundle;

/**
 * Tensor element types as numbered by ONNX's {@code TensorProto.DataType}, which is what a graph file stores.
 * Names match ONNX Runtime's {@code OnnxJavaType} where both exist, so messages read the same either way.
 */
public enum ElementType {
    /** Unknown or not a tensor. */
    UNDEFINED(0),
    /** 32-bit float. */
    FLOAT(1),
    /** Unsigned byte. */
    UINT8(2),
    /** Signed byte. */
    INT8(3),
    /** Unsigned 16-bit integer. */
    UINT16(4),
    /** Signed 16-bit integer. */
    INT16(5),
    /** Signed 32-bit integer. */
    INT32(6),
    /** Signed 64-bit integer. */
    INT64(7),
    /** String. */
    STRING(8),
    /** Boolean. */
    BOOL(9),
    /** IEEE half precision float. */
    FLOAT16(10),
    /** 64-bit float. */
    DOUBLE(11),
    /** Unsigned 32-bit integer. */
    UINT32(12),
    /** Unsigned 64-bit integer. */
    UINT64(13),
    /** Complex of two floats. */
    COMPLEX64(14),
    /** Complex of two doubles. */
    COMPLEX128(15),
    /** Brain float 16. */
    BFLOAT16(16);

    private final int onnxCode;

    ElementType(int onnxCode) {
        this.onnxCode = onnxCode;
    }

    /** @return the {@code TensorProto.DataType} number */
    int onnxCode() {
        return onnxCode;
    }

    /**
     * @param code a {@code TensorProto.DataType} number
     * @return the type, or {@link #UNDEFINED} for codes this SDK never feeds (float8, int4, …)
     */
    static ElementType fromOnnxCode(int code) {
        for (ElementType t : values()) {
            if (t.onnxCode == code) {
                return t;
            }
        }
        return UNDEFINED;
    }

    /**
     * @return whether this SDK converts host fp32 values to and from this type: {@link #FLOAT}, {@link #FLOAT16},
     *     {@link #BFLOAT16} or {@link #DOUBLE}
     */
    public boolean isHostFloat() {
        return this == FLOAT || this == FLOAT16 || this == BFLOAT16 || this == DOUBLE;
    }

    /** @return whether this SDK writes integer host values into this type ({@link #INT64} or {@link #INT32}) */
    public boolean isHostInteger() {
        return this == INT64 || this == INT32;
    }

    /** @return bytes per element, or 0 for types without a fixed size */
    public int byteSize() {
        return switch (this) {
            case UINT8, INT8, BOOL -> 1;
            case UINT16, INT16, FLOAT16, BFLOAT16 -> 2;
            case FLOAT, INT32, UINT32 -> 4;
            case INT64, UINT64, DOUBLE, COMPLEX64 -> 8;
            case COMPLEX128 -> 16;
            default -> 0;
        };
    }
}
