package dev.flux2.testkit;

/**
 * Where a graph boundary of a given element type rounds an fp32 value: to binary16 for FLOAT16, to bfloat16
 * (nearest, ties to even) for BFLOAT16, and not at all for FLOAT and DOUBLE (the synthetic graphs compute in fp32,
 * and a double holds every fp32 value exactly).
 */
final class Rounding {
    private Rounding() {}

    static float round(TensorElementType type, float value) {
        return switch (type) {
            case FLOAT16 -> Fp16.round(value);
            case BFLOAT16 -> bfloat16(value);
            default -> value;
        };
    }

    static float[] rounded(TensorElementType type, float[] values) {
        float[] out = values.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] = round(type, out[i]);
        }
        return out;
    }

    /** Converts to float (as the graph's fp32 compute ends) and rounds to the output's type. */
    static float[] toType(TensorElementType type, double[] values) {
        float[] out = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = round(type, (float) values[i]);
        }
        return out;
    }

    /** bfloat16 keeps the top 16 bits of the fp32 pattern; the dropped half rounds to nearest, ties to even. */
    static float bfloat16(float value) {
        if (Float.isNaN(value)) {
            return value;
        }
        int bits = Float.floatToRawIntBits(value);
        int dropped = bits & 0xffff;
        int kept = bits & 0xffff_0000;
        boolean odd = (kept & 0x1_0000) != 0;
        if (dropped > 0x8000 || (dropped == 0x8000 && odd)) {
            kept += 0x1_0000;
        }
        return Float.intBitsToFloat(kept);
    }
}
