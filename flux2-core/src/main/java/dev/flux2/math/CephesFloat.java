package dev.flux2.math;

/**
 * Scalar float32 ports of the Cephes-style {@code log256_ps} and {@code sincos256_ps} of ATen's
 * {@code native/cpu/avx_mathfun.h} (after Julien Pommier's sse_mathfun), which torch's AVX2 {@code normal_fill}
 * uses. Each lane of those routines is plain IEEE float32 arithmetic, so evaluating the same operations in the same
 * order in Java {@code float} gives the same bits. They are approximations (about 1 ulp), not correctly rounded:
 * that is the point, since torch's noise is defined by them.
 *
 * <p>The intrinsics are ordinary vector arithmetic to GCC, which builds torch's AVX2 kernels with FMA enabled and
 * its default {@code -ffp-contract=fast}: every multiply whose only use is an add or subtract is fused into that
 * add, the earlier multiply when two compete. The {@code Math.fma} calls below mirror exactly those contractions;
 * without them about 1% of torch's samples differ by one ulp. Checked bit for bit against
 * {@code torch_randn.json}.
 */
final class CephesFloat {
    private static final float SQRTHF = (float) 0.707106781186547524;
    private static final float LOG_P0 = (float) 7.0376836292E-2;
    private static final float LOG_P1 = (float) -1.1514610310E-1;
    private static final float LOG_P2 = (float) 1.1676998740E-1;
    private static final float LOG_P3 = (float) -1.2420140846E-1;
    private static final float LOG_P4 = (float) 1.4249322787E-1;
    private static final float LOG_P5 = (float) -1.6668057665E-1;
    private static final float LOG_P6 = (float) 2.0000714765E-1;
    private static final float LOG_P7 = (float) -2.4999993993E-1;
    private static final float LOG_P8 = (float) 3.3333331174E-1;
    private static final float LOG_Q1 = (float) -2.12194440e-4;
    private static final float LOG_Q2 = (float) 0.693359375;

    private static final float MINUS_DP1 = (float) -0.78515625;
    private static final float MINUS_DP2 = (float) -2.4187564849853515625e-4;
    private static final float MINUS_DP3 = (float) -3.77489497744594108e-8;
    private static final float SINCOF_P0 = (float) -1.9515295891E-4;
    private static final float SINCOF_P1 = (float) 8.3321608736E-3;
    private static final float SINCOF_P2 = (float) -1.6666654611E-1;
    private static final float COSCOF_P0 = (float) 2.443315711809948E-005;
    private static final float COSCOF_P1 = (float) -1.388731625493765E-003;
    private static final float COSCOF_P2 = (float) 4.166664568298827E-002;
    private static final float FOPI = (float) 1.27323954473516;

    private static final int MIN_NORM_POS = 0x00800000;
    private static final int MANT_MASK = 0x7f800000;
    private static final int SIGN_MASK = 0x80000000;

    private CephesFloat() {}

    /**
     * {@code log256_ps} for one lane.
     *
     * @param value the argument
     * @return its natural logarithm (NaN for arguments ≤ 0, like the original)
     */
    static float log(float value) {
        boolean invalid = value <= 0f;
        float x = Math.max(value, Float.intBitsToFloat(MIN_NORM_POS));
        int bits = Float.floatToRawIntBits(x);
        int exponent = (bits >>> 23) - 0x7f;
        x = Float.intBitsToFloat((bits & ~MANT_MASK) | Float.floatToRawIntBits(0.5f));
        float e = (float) exponent;
        e = e + 1f;
        boolean small = x < SQRTHF;
        float tmp = small ? x : 0f;
        x = x - 1f;
        e = e - (small ? 1f : 0f);
        x = x + tmp;

        float z = x * x;
        float y = LOG_P0;
        y = Math.fma(y, x, LOG_P1);
        y = Math.fma(y, x, LOG_P2);
        y = Math.fma(y, x, LOG_P3);
        y = Math.fma(y, x, LOG_P4);
        y = Math.fma(y, x, LOG_P5);
        y = Math.fma(y, x, LOG_P6);
        y = Math.fma(y, x, LOG_P7);
        y = Math.fma(y, x, LOG_P8);
        y = y * x;
        // y·z + e·q1: the earlier product (y·z) is the one fused
        y = Math.fma(y, z, e * LOG_Q1);
        y = Math.fma(-z, 0.5f, y);
        x = x + y;
        x = Math.fma(e, LOG_Q2, x);
        return invalid ? Float.intBitsToFloat(Float.floatToRawIntBits(x) | 0xffffffff) : x;
    }

    /**
     * {@code sincos256_ps} for one lane, scaled: writes {@code radius·cos(theta)} to {@code out[cosAt]} and
     * {@code radius·sin(theta)} to {@code out[sinAt]}, both products in float32 as in {@code normal_fill_16_AVX2}
     * with mean 0 and std 1.
     *
     * @param theta the angle (accurate for |theta| below about 8192)
     * @param radius the factor applied to both results
     * @param out destination array
     * @param cosAt index for the cosine term
     * @param sinAt index for the sine term
     */
    static void scaledSinCos(float theta, float radius, float[] out, int cosAt, int sinAt) {
        int thetaBits = Float.floatToRawIntBits(theta);
        int signSin = thetaBits & SIGN_MASK;
        float x = Float.intBitsToFloat(thetaBits & ~SIGN_MASK);

        int j = (int) (x * FOPI);
        j = (j + 1) & ~1;
        float y = (float) j;
        signSin ^= (j & 4) << 29;
        boolean polyMask = (j & 2) == 0;
        int signCos = (~(j - 2) & 4) << 29;

        x = Math.fma(y, MINUS_DP1, x);
        x = Math.fma(y, MINUS_DP2, x);
        x = Math.fma(y, MINUS_DP3, x);

        float z = x * x;
        float c = COSCOF_P0;
        c = Math.fma(c, z, COSCOF_P1);
        c = Math.fma(c, z, COSCOF_P2);
        c = c * z;
        // c·z − z·0.5: the earlier product (c·z) is the one fused
        c = Math.fma(c, z, -(z * 0.5f));
        c = c + 1f;

        float s = SINCOF_P0;
        s = Math.fma(s, z, SINCOF_P1);
        s = Math.fma(s, z, SINCOF_P2);
        s = s * z;
        s = Math.fma(s, x, x);

        // the masked selection adds +0 to the chosen polynomial, which turns −0 into +0
        float sin = (polyMask ? s : c) + 0f;
        float cos = (polyMask ? c : s) + 0f;
        sin = Float.intBitsToFloat(Float.floatToRawIntBits(sin) ^ signSin);
        cos = Float.intBitsToFloat(Float.floatToRawIntBits(cos) ^ signCos);
        // normal_fill_16_AVX2 stores fmadd(r·cos, std = 1, mean = 0), which also maps −0 to +0
        out[cosAt] = radius * cos + 0f;
        out[sinAt] = radius * sin + 0f;
    }
}
