package dev.flux2.onnx.tensor;

import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;

/**
 * Finds NaN or infinity in a tensor's raw bytes where they already are (the native buffer a stage wrote), without
 * widening or copying them: a value is non-finite when every exponent bit is set (fp32 {@code 0x7f800000}, fp16
 * {@code 0x7c00}, bf16 {@code 0x7f80}). Stateless and thread-safe.
 */
final class NonFinite {
    private NonFinite() {}

    /**
     * @param bytes native-order bytes of the tensor (position 0 is element 0)
     * @param type the element type
     * @param elements how many elements to scan
     * @return the index of the first non-finite element, or -1 (also for integer types)
     */
    static int firstIndex(ByteBuffer bytes, ElementType type, int elements) {
        switch (type) {
            case FLOAT -> {
                for (int i = 0; i < elements; i++) {
                    if ((bytes.getInt(i * 4) & 0x7f80_0000) == 0x7f80_0000) {
                        return i;
                    }
                }
            }
            case FLOAT16, BFLOAT16 -> {
                int mask = type == ElementType.FLOAT16 ? 0x7c00 : 0x7f80;
                for (int i = 0; i < elements; i++) {
                    if ((bytes.getShort(i * 2) & mask) == mask) {
                        return i;
                    }
                }
            }
            case DOUBLE -> {
                for (int i = 0; i < elements; i++) {
                    if (!Double.isFinite(bytes.getDouble(i * 8))) {
                        return i;
                    }
                }
            }
            default -> {
                return -1;
            }
        }
        return -1;
    }
}
