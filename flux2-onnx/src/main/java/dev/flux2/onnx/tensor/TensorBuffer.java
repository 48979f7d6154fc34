package dev.flux2.onnx.tensor;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import dev.flux2.api.InferenceException;
import dev.flux2.onnx.graph.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A tensor of fixed shape over a direct, native-order buffer that this object owns, so ONNX Runtime reads and
 * writes it without copies (java-notes §3). Used for every input and for pinned outputs; rewriting the buffer
 * between runs changes what the next run sees.
 *
 * <p>Host values are fp32 ({@code float[]}); fp16 tensors are converted with a scalar loop through a small reused
 * array and bulk-copied, with saturation at ±65504 ({@link Fp16}). Not thread-safe: one generation owns it.
 * {@link #close()} is idempotent; the direct memory itself is returned by the garbage collector.
 */
public final class TensorBuffer implements AutoCloseable {
    private static final int SCRATCH = 8192;

    private final ElementType type;
    private final long[] shape;
    private final int elements;
    private final ByteBuffer bytes;
    private final OnnxTensor tensor;
    private final AtomicBoolean closed = new AtomicBoolean();
    private short[] halfScratch;

    private TensorBuffer(ElementType type, long[] shape, int elements, ByteBuffer bytes, OnnxTensor tensor) {
        this.type = type;
        this.shape = shape;
        this.elements = elements;
        this.bytes = bytes;
        this.tensor = tensor;
    }

    /**
     * Allocates a zero-filled tensor.
     *
     * @param env the ONNX Runtime environment
     * @param type FLOAT, FLOAT16, INT64 or INT32
     * @param shape the shape (all sizes fixed)
     * @return the tensor; the caller closes it
     * @throws InferenceException when ONNX Runtime cannot create it
     */
    public static TensorBuffer allocate(OrtEnvironment env, ElementType type, long... shape) {
        long count = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("tensor shape must be fixed, got " + Arrays.toString(shape));
            }
            count *= d;
        }
        long byteCount = count * type.byteSize();
        if (type.byteSize() == 0 || byteCount > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("cannot allocate a " + type + " tensor of shape "
                    + Arrays.toString(shape) + " in one buffer");
        }
        ByteBuffer bytes = ByteBuffer.allocateDirect((int) byteCount).order(ByteOrder.nativeOrder());
        try {
            OnnxTensor tensor = OnnxTensor.createTensor(env, bytes, shape.clone(), javaType(type));
            return new TensorBuffer(type, shape.clone(), (int) count, bytes, tensor);
        } catch (OrtException e) {
            throw new InferenceException("cannot create a " + type + " tensor of shape " + Arrays.toString(shape)
                    + ": " + e.getMessage(), e.getCode().name(), e);
        }
    }

    private static OnnxJavaType javaType(ElementType type) {
        return switch (type) {
            case FLOAT -> OnnxJavaType.FLOAT;
            case FLOAT16 -> OnnxJavaType.FLOAT16;
            case INT64 -> OnnxJavaType.INT64;
            case INT32 -> OnnxJavaType.INT32;
            default -> throw new IllegalArgumentException("unsupported tensor element type " + type);
        };
    }

    /** @return the ONNX Runtime tensor over this buffer (owned by this object) */
    public OnnxTensor tensor() {
        checkOpen();
        return tensor;
    }

    /** @return the element type */
    public ElementType type() {
        return type;
    }

    /** @return a copy of the shape */
    public long[] shape() {
        return shape.clone();
    }

    /** @return the number of elements */
    public int elements() {
        return elements;
    }

    /**
     * Writes fp32 host values, converting to the tensor's float type.
     *
     * @param src source values
     * @param srcOffset first source index
     * @param count number of values
     * @param dstIndex first element index in this tensor
     */
    public void writeFloats(float[] src, int srcOffset, int count, int dstIndex) {
        checkRange(dstIndex, count);
        switch (type) {
            case FLOAT -> floats().put(dstIndex, src, srcOffset, count);
            case FLOAT16 -> {
                ShortBuffer shorts = shorts();
                short[] scratch = scratch();
                for (int done = 0; done < count; done += scratch.length) {
                    int n = Math.min(scratch.length, count - done);
                    for (int i = 0; i < n; i++) {
                        scratch[i] = Fp16.fromFloat(src[srcOffset + done + i]);
                    }
                    shorts.put(dstIndex + done, scratch, 0, n);
                }
            }
            default -> throw new IllegalStateException("cannot write floats into a " + type + " tensor");
        }
    }

    /**
     * Writes one fp32 value.
     *
     * @param index element index
     * @param value the value
     */
    public void writeFloat(int index, float value) {
        writeFloats(new float[] {value}, 0, 1, index);
    }

    /**
     * Reads values as fp32.
     *
     * @param srcIndex first element index in this tensor
     * @param dst destination
     * @param dstOffset first destination index
     * @param count number of values
     */
    public void readFloats(int srcIndex, float[] dst, int dstOffset, int count) {
        checkRange(srcIndex, count);
        switch (type) {
            case FLOAT -> floats().get(srcIndex, dst, dstOffset, count);
            case FLOAT16 -> {
                ShortBuffer shorts = shorts();
                short[] scratch = scratch();
                for (int done = 0; done < count; done += scratch.length) {
                    int n = Math.min(scratch.length, count - done);
                    shorts.get(srcIndex + done, scratch, 0, n);
                    for (int i = 0; i < n; i++) {
                        dst[dstOffset + done + i] = Fp16.toFloat(scratch[i]);
                    }
                }
            }
            default -> throw new IllegalStateException("cannot read floats from a " + type + " tensor");
        }
    }

    /**
     * Writes int64 values.
     *
     * @param src the values; exactly {@link #elements()} of them
     */
    public void writeLongs(long[] src) {
        if (type != ElementType.INT64) {
            throw new IllegalStateException("cannot write longs into a " + type + " tensor");
        }
        if (src.length != elements) {
            throw new IllegalArgumentException("expected " + elements + " values, got " + src.length);
        }
        longs().put(0, src, 0, src.length);
    }

    /**
     * Copies raw elements from a buffer of the same element type (used to move attention rows).
     *
     * @param src native-order source bytes
     * @param srcIndex first source element
     * @param dstIndex first element in this tensor
     * @param count number of elements
     */
    public void copyElements(ByteBuffer src, int srcIndex, int dstIndex, int count) {
        checkRange(dstIndex, count);
        int size = type.byteSize();
        ByteBuffer from = src.duplicate().order(src.order());
        from.limit((srcIndex + count) * size).position(srcIndex * size);
        ByteBuffer to = bytes.duplicate().order(ByteOrder.nativeOrder());
        to.position(dstIndex * size);
        to.put(from);
    }

    /**
     * Sets elements to zero.
     *
     * @param fromIndex first element
     * @param count number of elements
     */
    public void zero(int fromIndex, int count) {
        checkRange(fromIndex, count);
        int size = type.byteSize();
        for (int b = fromIndex * size, end = (fromIndex + count) * size; b < end; b++) {
            bytes.put(b, (byte) 0);
        }
    }

    /** @return a read-only, native-order view of the raw bytes */
    public ByteBuffer bytes() {
        checkOpen();
        return bytes.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    }

    private FloatBuffer floats() {
        checkOpen();
        return bytes.duplicate().order(ByteOrder.nativeOrder()).asFloatBuffer();
    }

    private ShortBuffer shorts() {
        checkOpen();
        return bytes.duplicate().order(ByteOrder.nativeOrder()).asShortBuffer();
    }

    private LongBuffer longs() {
        checkOpen();
        return bytes.duplicate().order(ByteOrder.nativeOrder()).asLongBuffer();
    }

    private short[] scratch() {
        if (halfScratch == null) {
            halfScratch = new short[Math.min(SCRATCH, Math.max(1, elements))];
        }
        return halfScratch;
    }

    private void checkRange(int index, int count) {
        if (index < 0 || count < 0 || index + count > elements) {
            throw new IndexOutOfBoundsException("elements [" + index + ", " + (index + count) + ") outside a "
                    + type + " tensor of shape " + Arrays.toString(shape));
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("tensor of shape " + Arrays.toString(shape) + " is closed");
        }
    }

    /** Closes the ONNX Runtime tensor. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            tensor.close();
        }
    }
}
