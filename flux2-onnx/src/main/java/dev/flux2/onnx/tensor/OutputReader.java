package dev.flux2.onnx.tensor;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.InferenceException;
import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.Arrays;

/**
 * Reads tensors that ONNX Runtime allocated. These are copied out with {@code getFloatBuffer}/{@code getByteBuffer}
 * and never through {@code getBufferRef()}, which throws a {@code NullPointerException} on runtime-allocated
 * outputs in 1.26 (docs/design-notes.md §3). Stateless.
 */
public final class OutputReader {
    private OutputReader() {}

    /**
     * @param result a run's result
     * @param name an output name
     * @param where the stage, for messages
     * @return the output as a tensor (still owned by the result)
     */
    public static OnnxTensor tensor(OrtSession.Result result, String name, String where) {
        OnnxValue value = result.get(name)
                .orElseThrow(() -> new InferenceException(where + ": the graph returned no output '" + name + "'"));
        if (!(value instanceof OnnxTensor tensor)) {
            throw new InferenceException(
                    where + ": output '" + name + "' is a " + value.getType() + ", expected a tensor");
        }
        return tensor;
    }

    /**
     * @param tensor a FLOAT, FLOAT16, BFLOAT16 or DOUBLE tensor
     * @param expectedShape the shape it must have
     * @param where the stage, for messages
     * @return its values as fp32, in C order
     */
    public static float[] floats(OnnxTensor tensor, long[] expectedShape, String where) {
        requireShape(tensor, expectedShape, where);
        ElementType type = TensorTypes.of(tensor);
        if (type == ElementType.DOUBLE) {
            DoubleBuffer doubles = tensor.getDoubleBuffer();
            float[] values = new float[doubles.remaining()];
            for (int i = 0; i < values.length; i++) {
                values[i] = (float) doubles.get(i);
            }
            return values;
        }
        if (type == ElementType.FLOAT16 || type == ElementType.BFLOAT16) {
            // Not getFloatBuffer: for 16-bit types it widens into a new direct buffer, which only a garbage
            // collection frees (3 MiB per 512² image); the raw bytes are a heap copy, widened here.
            ByteBuffer raw = tensor.getByteBuffer();
            int count = raw.remaining() / type.byteSize();
            float[] values = new float[count];
            ElementCodec.decode(type, raw, 0, values, 0, count, new short[Math.min(1024, Math.max(1, count))]);
            return values;
        }
        FloatBuffer buffer = type == ElementType.FLOAT ? tensor.getFloatBuffer() : null;
        if (buffer == null) {
            throw new InferenceException(where + ": output is " + tensor.getInfo().type + ", expected a float tensor");
        }
        float[] values = new float[buffer.remaining()];
        buffer.get(values);
        return values;
    }

    /**
     * @param tensor any numeric tensor
     * @return a native-order copy of its raw bytes
     */
    public static ByteBuffer bytes(OnnxTensor tensor) {
        return tensor.getByteBuffer();
    }

    /**
     * @param tensor a tensor
     * @param expected the shape it must have
     * @param where the stage, for messages
     */
    static void requireShape(OnnxTensor tensor, long[] expected, String where) {
        long[] actual = tensor.getInfo().getShape();
        if (!Arrays.equals(actual, expected)) {
            throw new InferenceException(where + ": output has shape " + Arrays.toString(actual) + ", expected "
                    + Arrays.toString(expected));
        }
    }
}
