package dev.flux2.testkit;

/**
 * IEEE 754 binary16 conversions implemented here (JDK 17 has no {@code Float.floatToFloat16}), used to emulate
 * exactly where the synthetic graphs round to fp16.
 *
 * <p>{@link #fromFloat} rounds to nearest, ties to even, overflows to ±infinity (like ONNX Runtime's Cast and
 * unlike the browser engine's saturating conversion) and keeps NaN a NaN.
 */
public final class Fp16 {
    private static final int HALF_EXP_MASK = 0x7c00;

    private Fp16() {}

    /**
     * @param value a float
     * @return the binary16 bits nearest to {@code value} (ties to even; ±inf on overflow)
     */
    public static short fromFloat(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exp = (bits >>> 23) & 0xff;
        int mant = bits & 0x7f_ffff;
        if (exp == 0xff) {
            // Keep NaN a (quiet) NaN even when its payload sits only in the low mantissa bits.
            return (short) (sign | HALF_EXP_MASK | (mant != 0 ? 0x200 | (mant >>> 13) : 0));
        }
        int e = exp - 127 + 15;
        if (e >= 0x1f) {
            return (short) (sign | HALF_EXP_MASK);
        }
        if (e <= 0) {
            if (e < -10) {
                return (short) sign;
            }
            // Subnormal half: value / 2^-24 = (1.m * 2^23) >> (14 - e).
            int full = mant | 0x80_0000;
            int shift = 14 - e;
            int half = full >>> shift;
            int rem = full & ((1 << shift) - 1);
            int halfway = 1 << (shift - 1);
            if (rem > halfway || (rem == halfway && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (e << 10) | (mant >>> 13);
        int rem = mant & 0x1fff;
        if (rem > 0x1000 || (rem == 0x1000 && (half & 1) != 0)) {
            // A carry out of the mantissa correctly bumps the exponent (up to infinity).
            half++;
        }
        return (short) (sign | half);
    }

    /**
     * @param half binary16 bits
     * @return the exact float value
     */
    public static float toFloat(short half) {
        int h = half & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exp = (h >>> 10) & 0x1f;
        int mant = h & 0x3ff;
        if (exp == 0) {
            float magnitude = mant * 0x1p-24f;
            return sign != 0 ? -magnitude : magnitude;
        }
        if (exp == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f80_0000 | (mant << 13));
        }
        return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
    }

    /**
     * @param value a float
     * @return {@code value} rounded to the nearest binary16 value, as a float
     */
    public static float round(float value) {
        return toFloat(fromFloat(value));
    }

    /**
     * Rounds every element in place.
     *
     * @param values floats
     * @return the same array, each element rounded to binary16
     */
    public static float[] roundInPlace(float[] values) {
        for (int i = 0; i < values.length; i++) {
            values[i] = round(values[i]);
        }
        return values;
    }

    /**
     * @param values floats
     * @return a new array with every element rounded to binary16
     */
    public static float[] rounded(float[] values) {
        return roundInPlace(values.clone());
    }

    /**
     * The spacing of binary16 values at the magnitude of {@code value}: 2^-24 below 2^-14, otherwise
     * 2^(exponent − 10); 2^5 at and above 65504.
     *
     * @param value a finite float
     * @return one fp16 unit in the last place at |value|
     */
    public static float ulp(float value) {
        float a = Math.abs(value);
        if (a < 0x1p-14f) {
            return 0x1p-24f;
        }
        if (a >= 65504f) {
            return 32f;
        }
        return Math.scalb(1f, Math.getExponent(a) - 10);
    }
}
