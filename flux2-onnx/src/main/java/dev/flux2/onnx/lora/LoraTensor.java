package dev.flux2.onnx.lora;

import ai.onnxruntime.platform.Fp16Conversions;
import java.util.Arrays;

/**
 * One tensor of a LoRA file, widened to floats, with the element type it was stored in: diffusers scales kohya
 * factors in that type (the product rounded back to it), so a faithful conversion must know it.
 *
 * @param name the tensor's key in the file
 * @param dtype the stored element type
 * @param shape the shape
 * @param values the elements in row-major order
 */
record LoraTensor(String name, SafetensorsFile.Dtype dtype, long[] shape, float[] values) {
    /** @return rows of a matrix ({@code shape[0]}) */
    int rows() {
        return (int) shape[0];
    }

    /** @return columns of a matrix ({@code shape[1]}) */
    int cols() {
        return (int) shape[1];
    }

    /** @return true when this is a 2-D matrix */
    boolean isMatrix() {
        return shape.length == 2;
    }

    /**
     * @param factor a scale
     * @return this tensor times the factor, each product rounded to the stored element type, as torch computes
     *     {@code tensor * python_float} for a tensor of that type
     */
    LoraTensor times(double factor) {
        float[] out = new float[values.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = roundToDtype((float) (values[i] * (float) factor), dtype);
        }
        return new LoraTensor(name, dtype, shape, out);
    }

    /**
     * @param from first row (inclusive)
     * @param to last row (exclusive)
     * @return rows {@code [from, to)} of this matrix
     */
    LoraTensor rows(int from, int to) {
        int c = cols();
        return new LoraTensor(
                name + "[" + from + ":" + to + "]",
                dtype,
                new long[] {to - from, c},
                Arrays.copyOfRange(values, from * c, to * c));
    }

    /**
     * @param rowFrom first row (inclusive)
     * @param rowTo last row (exclusive)
     * @param colFrom first column (inclusive)
     * @param colTo last column (exclusive)
     * @return the block of this matrix
     */
    LoraTensor block(int rowFrom, int rowTo, int colFrom, int colTo) {
        int c = cols();
        int w = colTo - colFrom;
        float[] out = new float[(rowTo - rowFrom) * w];
        for (int r = rowFrom; r < rowTo; r++) {
            System.arraycopy(values, r * c + colFrom, out, (r - rowFrom) * w, w);
        }
        return new LoraTensor(name, dtype, new long[] {rowTo - rowFrom, w}, out);
    }

    /** @return true when every element of the block is exactly zero */
    boolean blockIsZero(int rowFrom, int rowTo, int colFrom, int colTo) {
        int c = cols();
        for (int r = rowFrom; r < rowTo; r++) {
            for (int k = colFrom; k < colTo; k++) {
                if (values[r * c + k] != 0f) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Rounds a float to the nearest value of the element type (round half to even), as a torch cast does. */
    static float roundToDtype(float v, SafetensorsFile.Dtype dtype) {
        return switch (dtype) {
            case F32 -> v;
            case F16 -> Fp16Conversions.fp16ToFloat(Fp16Conversions.floatToFp16(v));
            case BF16 -> {
                if (Float.isNaN(v)) {
                    yield v;
                }
                int bits = Float.floatToRawIntBits(v);
                int rounded = bits + 0x7FFF + ((bits >>> 16) & 1);
                yield Float.intBitsToFloat(rounded & 0xFFFF0000);
            }
        };
    }
}
