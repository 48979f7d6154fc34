package dev.flux2.onnx.tensor;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import dev.flux2.api.InferenceException;
import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A tensor of fixed shape over a direct, native-order buffer that this object owns, so ONNX Runtime reads and writes it
 * without copies (docs/design-notes.md §3). Used for every input and for pinned outputs; rewriting the buffer between
 * runs changes what the next run sees.
 *
 * <p>Host values are fp32 ({@code float[]}), converted to and from whatever element type the graph declares
 * ({@link ElementCodec}: fp16 through a small reused array and one bulk copy per block, with saturation at
 * ±65504). Not thread-safe: one generation owns it. {@link #close()} is idempotent and gives the direct buffer back
 * to the {@link DirectBufferPool} it came from (from the unpooled pool: to the garbage collector), so views from
 * {@link #bytes()} must not be used after it.
 */
public final class TensorBuffer implements AutoCloseable {
    private static final int SCRATCH = 8192;

    private final ElementType type;
    private final long[] shape;
    private final int elements;
    private final ByteBuffer bytes;
    private final OnnxTensor tensor;
    private final DirectBufferPool pool;
    private final AtomicBoolean closed = new AtomicBoolean();
    private short[] halfScratch;
    private final float[] single = new float[1];

    private TensorBuffer(ElementType type, long[] shape, ByteBuffer bytes, OnnxTensor tensor, DirectBufferPool pool) {
        this.type = type;
        this.shape = shape;
        this.elements = bytes.capacity() / type.byteSize();
        this.bytes = bytes;
        this.tensor = tensor;
        this.pool = pool;
    }

    /**
     * Allocates a zero-filled tensor whose buffer the garbage collector frees.
     *
     * @param env the ONNX Runtime environment
     * @param type FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64 or INT32
     * @param shape the shape (all sizes fixed)
     * @return the tensor; the caller closes it
     * @throws InferenceException when ONNX Runtime cannot create it
     */
    public static TensorBuffer allocate(OrtEnvironment env, ElementType type, long... shape) {
        return allocate(DirectBufferPool.unpooled(), env, type, shape);
    }

    /**
     * Allocates a zero-filled tensor over a buffer from {@code pool}, given back to it by {@link #close()}.
     *
     * @param pool where the buffer comes from and returns to
     * @param env the ONNX Runtime environment
     * @param type FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT64 or INT32
     * @param shape the shape (all sizes fixed)
     * @return the tensor; the caller closes it
     * @throws InferenceException when ONNX Runtime cannot create it
     */
    public static TensorBuffer allocate(DirectBufferPool pool, OrtEnvironment env, ElementType type, long... shape) {
        long count = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("tensor shape must be fixed, got " + Arrays.toString(shape));
            }
            count *= d;
        }
        if (!ElementCodec.supports(type)) {
            throw new IllegalArgumentException("unsupported tensor element type " + type + " (supported: float "
                    + "types FLOAT, FLOAT16, BFLOAT16, DOUBLE and integer types INT64, INT32)");
        }
        long byteCount = count * type.byteSize();
        if (byteCount > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException(
                    "cannot allocate a " + type + " tensor of shape " + Arrays.toString(shape) + " in one buffer");
        }
        ByteBuffer bytes = pool.acquire((int) byteCount);
        try {
            OnnxTensor tensor = OnnxTensor.createTensor(env, bytes, shape.clone(), TensorTypes.javaType(type));
            return new TensorBuffer(type, shape.clone(), bytes, tensor, pool);
        } catch (OrtException e) {
            pool.release(bytes);
            throw new InferenceException(
                    "cannot create a " + type + " tensor of shape " + Arrays.toString(shape) + ": " + e.getMessage(),
                    e.getCode().name(),
                    e);
        }
    }

    /**
     * Allocates a tensor holding {@code src}'s values converted to {@code type} (fp16 saturating, see {@link Fp16}).
     * Used where one graph's output feeds another graph's input of a different float type.
     *
     * @param env the ONNX Runtime environment
     * @param src a float or id tensor (for example a runtime-allocated output); read, not modified
     * @param type the element type wanted
     * @return the converted copy; the caller closes it
     */
    public static TensorBuffer convertedCopy(OrtEnvironment env, OnnxTensor src, ElementType type) {
        return convertedCopy(DirectBufferPool.unpooled(), env, src, type);
    }

    /**
     * @param pool where the copy's buffer comes from and returns to
     * @param env the ONNX Runtime environment
     * @param src a float or id tensor (for example a runtime-allocated output); read, not modified
     * @param type the element type wanted
     * @return the converted copy; the caller closes it
     */
    public static TensorBuffer convertedCopy(
            DirectBufferPool pool, OrtEnvironment env, OnnxTensor src, ElementType type) {
        ElementType from = TensorTypes.of(src);
        long[] shape = src.getInfo().getShape();
        TensorBuffer out = allocate(pool, env, type, shape);
        try {
            // getByteBuffer copies the raw elements once; the conversion then streams through a small scratch.
            out.convertFrom(src.getByteBuffer(), from);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /**
     * @param env the ONNX Runtime environment
     * @param src a tensor of this class; read, not modified
     * @param type the element type wanted
     * @return {@code src}'s values converted to {@code type}; the caller closes it
     */
    public static TensorBuffer convertedCopy(OrtEnvironment env, TensorBuffer src, ElementType type) {
        return convertedCopy(DirectBufferPool.unpooled(), env, src, type);
    }

    /**
     * @param pool where the copy's buffer comes from and returns to
     * @param env the ONNX Runtime environment
     * @param src a tensor of this class; read, not modified
     * @param type the element type wanted
     * @return {@code src}'s values converted to {@code type}; the caller closes it
     */
    public static TensorBuffer convertedCopy(
            DirectBufferPool pool, OrtEnvironment env, TensorBuffer src, ElementType type) {
        TensorBuffer out = allocate(pool, env, type, src.shape);
        try {
            out.convertFrom(src.bytes(), src.type);
            return out;
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    private void convertFrom(ByteBuffer src, ElementType from) {
        float[] block = new float[Math.min(SCRATCH, Math.max(1, elements))];
        short[] scratch = scratch();
        for (int done = 0; done < elements; done += block.length) {
            int n = Math.min(block.length, elements - done);
            ElementCodec.decode(from, src, done, block, 0, n, scratch);
            ElementCodec.encode(type, block, 0, n, bytes, done, scratch);
        }
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
     * Writes fp32 host values, converting to the tensor's element type (float types round, fp16 saturating at
     * ±65504; integer types take whole numbers only, as position ids are).
     *
     * @param src source values
     * @param srcOffset first source index
     * @param count number of values
     * @param dstIndex first element index in this tensor
     * @throws IllegalArgumentException for a non-integral value written into an integer tensor
     */
    public void writeFloats(float[] src, int srcOffset, int count, int dstIndex) {
        checkRange(dstIndex, count);
        checkOpen();
        ElementCodec.encode(type, src, srcOffset, count, bytes, dstIndex, scratch());
    }

    /**
     * Writes one fp32 value.
     *
     * @param index element index
     * @param value the value
     */
    public void writeFloat(int index, float value) {
        single[0] = value;
        writeFloats(single, 0, 1, index);
    }

    /**
     * Reads values as fp32 (exact for FLOAT, FLOAT16, BFLOAT16 and small integers; DOUBLE is rounded).
     *
     * @param srcIndex first element index in this tensor
     * @param dst destination
     * @param dstOffset first destination index
     * @param count number of values
     */
    public void readFloats(int srcIndex, float[] dst, int dstOffset, int count) {
        checkRange(srcIndex, count);
        checkOpen();
        ElementCodec.decode(type, bytes, srcIndex, dst, dstOffset, count, scratch());
    }

    /**
     * Writes integer values (token ids, masks) into an INT64 or INT32 tensor.
     *
     * @param src the values; exactly {@link #elements()} of them
     * @throws IllegalArgumentException when a value does not fit an INT32 tensor
     */
    public void writeLongs(long[] src) {
        if (src.length != elements) {
            throw new IllegalArgumentException("expected " + elements + " values, got " + src.length);
        }
        switch (type) {
            case INT64 -> longs().put(0, src, 0, src.length);
            case INT32 -> {
                IntBuffer ints = ints();
                for (int i = 0; i < src.length; i++) {
                    long v = src[i];
                    if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
                        throw new IllegalArgumentException(
                                "value " + v + " at index " + i + " does not fit an INT32 tensor");
                    }
                    ints.put(i, (int) v);
                }
            }
            default -> throw new IllegalStateException("cannot write longs into a " + type + " tensor");
        }
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
        checkOpen();
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
        checkOpen();
        int size = type.byteSize();
        DirectBufferPool.zero(bytes, fromIndex * size, count * size);
    }

    /**
     * Scans the tensor in place for NaN or infinity (no conversion, no copy).
     *
     * @return the index of the first non-finite element, or -1 when every element is finite (always for integer
     *     types)
     */
    public int firstNonFinite() {
        checkOpen();
        return NonFinite.firstIndex(bytes(), type, elements);
    }

    /** @return a read-only, native-order view of the raw bytes */
    public ByteBuffer bytes() {
        checkOpen();
        return bytes.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    }

    private IntBuffer ints() {
        checkOpen();
        return bytes.duplicate().order(ByteOrder.nativeOrder()).asIntBuffer();
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
            throw new IndexOutOfBoundsException("elements [" + index + ", " + (index + count) + ") outside a " + type
                    + " tensor of shape " + Arrays.toString(shape));
        }
    }

    private void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateException("tensor of shape " + Arrays.toString(shape) + " is closed");
        }
    }

    /** Closes the ONNX Runtime tensor, then gives the buffer back to its pool. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                tensor.close();
            } finally {
                pool.release(bytes);
            }
        }
    }
}
