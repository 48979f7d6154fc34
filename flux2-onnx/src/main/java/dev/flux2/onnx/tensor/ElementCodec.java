package dev.flux2.onnx.tensor;

import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;

/**
 * Converts between host fp32 values and the raw elements of a native-order buffer, for every element type a graph
 * may declare for a float or id tensor: FLOAT and DOUBLE exactly, FLOAT16 saturating at ±65504 ({@link Fp16}),
 * BFLOAT16 rounding to nearest even, and INT64/INT32 for values that are whole numbers (position ids).
 *
 * <p>16-bit types go through a caller-supplied scratch array and one bulk copy per block, which was faster than ONNX
 * Runtime's bulk buffer conversions (docs/design-notes.md §3). Stateless and thread-safe (the scratch belongs to the
 * caller).
 */
final class ElementCodec {
    private ElementCodec() {}

    /**
     * @param type the element type
     * @return whether {@link #encode} and {@link #decode} support it
     */
    static boolean supports(ElementType type) {
        return type.isHostFloat() || type.isHostInteger();
    }

    /**
     * Writes {@code count} host values as elements of {@code type}.
     *
     * @param type the element type of {@code dst}
     * @param src source values
     * @param srcOffset first source index
     * @param count number of values
     * @param dst native-order destination bytes
     * @param dstIndex first destination element
     * @param scratch reusable scratch for 16-bit types (any length ≥ 1)
     * @throws IllegalArgumentException for a non-integral value written into an integer type
     */
    static void encode(
            ElementType type, float[] src, int srcOffset, int count, ByteBuffer dst, int dstIndex, short[] scratch) {
        ByteBuffer view = dst.duplicate().order(ByteOrder.nativeOrder());
        switch (type) {
            case FLOAT -> view.asFloatBuffer().put(dstIndex, src, srcOffset, count);
            case FLOAT16, BFLOAT16 -> {
                ShortBuffer shorts = view.asShortBuffer();
                boolean half = type == ElementType.FLOAT16;
                for (int done = 0; done < count; done += scratch.length) {
                    int n = Math.min(scratch.length, count - done);
                    for (int i = 0; i < n; i++) {
                        float v = src[srcOffset + done + i];
                        scratch[i] = half ? Fp16.fromFloat(v) : Fp16Conversions.floatToBf16(v);
                    }
                    shorts.put(dstIndex + done, scratch, 0, n);
                }
            }
            case DOUBLE -> {
                DoubleBuffer doubles = view.asDoubleBuffer();
                for (int i = 0; i < count; i++) {
                    doubles.put(dstIndex + i, src[srcOffset + i]);
                }
            }
            case INT64 -> {
                LongBuffer longs = view.asLongBuffer();
                for (int i = 0; i < count; i++) {
                    longs.put(dstIndex + i, integral(src[srcOffset + i], type));
                }
            }
            case INT32 -> {
                IntBuffer ints = view.asIntBuffer();
                for (int i = 0; i < count; i++) {
                    ints.put(dstIndex + i, (int) integral(src[srcOffset + i], type));
                }
            }
            default -> throw new IllegalStateException("cannot write floats into a " + type + " tensor");
        }
    }

    /**
     * Reads {@code count} elements of {@code type} as host fp32 values.
     *
     * @param type the element type of {@code src}
     * @param src native-order source bytes
     * @param srcIndex first source element
     * @param dst destination
     * @param dstOffset first destination index
     * @param count number of values
     * @param scratch reusable scratch for 16-bit types (any length ≥ 1)
     */
    static void decode(
            ElementType type, ByteBuffer src, int srcIndex, float[] dst, int dstOffset, int count, short[] scratch) {
        ByteBuffer view = src.duplicate().order(ByteOrder.nativeOrder());
        switch (type) {
            case FLOAT -> view.asFloatBuffer().get(srcIndex, dst, dstOffset, count);
            case FLOAT16, BFLOAT16 -> {
                ShortBuffer shorts = view.asShortBuffer();
                boolean half = type == ElementType.FLOAT16;
                for (int done = 0; done < count; done += scratch.length) {
                    int n = Math.min(scratch.length, count - done);
                    shorts.get(srcIndex + done, scratch, 0, n);
                    for (int i = 0; i < n; i++) {
                        dst[dstOffset + done + i] =
                                half ? Fp16.toFloat(scratch[i]) : Fp16Conversions.bf16ToFloat(scratch[i]);
                    }
                }
            }
            case DOUBLE -> {
                DoubleBuffer doubles = view.asDoubleBuffer();
                for (int i = 0; i < count; i++) {
                    dst[dstOffset + i] = (float) doubles.get(srcIndex + i);
                }
            }
            case INT64 -> {
                LongBuffer longs = view.asLongBuffer();
                for (int i = 0; i < count; i++) {
                    dst[dstOffset + i] = longs.get(srcIndex + i);
                }
            }
            case INT32 -> {
                IntBuffer ints = view.asIntBuffer();
                for (int i = 0; i < count; i++) {
                    dst[dstOffset + i] = ints.get(srcIndex + i);
                }
            }
            default -> throw new IllegalStateException("cannot read floats from a " + type + " tensor");
        }
    }

    private static long integral(float value, ElementType type) {
        long v = (long) value;
        if (v != value || (type == ElementType.INT32 && (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE))) {
            throw new IllegalArgumentException(
                    "cannot write " + value + " into a " + type + " tensor: not a whole number in range");
        }
        return v;
    }
}
