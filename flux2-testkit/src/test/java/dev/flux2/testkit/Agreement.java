package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Element-wise comparison of graph output and reference with an fp16-ulp tolerance, reporting the worst case. */
final class Agreement {
    /**
     * A bound |actual − expected| ≤ ulps·ulp16(max(|actual|, |expected|)) + absolute.
     *
     * @param ulps fp16 ulps of the value
     * @param absolute absolute slack
     */
    record Tolerance(double ulps, double absolute) {}

    /**
     * Single graph: one fp16 rounding of an fp32 result (≤ 1 ulp), plus slack for fp32 rounding of O(4) summands
     * (≈16 fp32 ulps of 4 = 2^-17) where they cancel to nearly 0.
     */
    static final Tolerance SINGLE = new Tolerance(1, 0x1p-17);
    /**
     * Chains of graphs or in-graph fp16 boundaries (fused steps, VAE chain): one possible flip per boundary of
     * values up to 4 (≤ 2^-9 each), damped by |dt| or the downstream gain.
     */
    static final Tolerance CHAIN = new Tolerance(2, 0x1p-9);
    /** Bit-for-bit (the same arithmetic on both sides). */
    static final Tolerance EXACT = new Tolerance(0, 0);

    private Agreement() {}

    /**
     * Asserts |actual − expected| ≤ ulps·ulp16(max(|actual|, |expected|)) + absolute for every element.
     *
     * @return the largest difference measured in fp16 ulps of the expected value
     */
    static double assertClose(String what, float[] expected, float[] actual, Tolerance tolerance) {
        double ulps = tolerance.ulps();
        double absolute = tolerance.absolute();
        assertEquals(expected.length, actual.length, what + ": length");
        double worstUlps = 0;
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i];
            float a = actual[i];
            if (!Float.isFinite(e) || !Float.isFinite(a)) {
                fail(what + "[" + i + "]: non-finite value, expected " + e + " got " + a);
            }
            float scale = Fp16.ulp(Math.max(Math.abs(a), Math.abs(e)));
            double diff = Math.abs((double) a - e);
            worstUlps = Math.max(worstUlps, diff / Fp16.ulp(e));
            if (diff > ulps * scale + absolute) {
                fail(what + "[" + i + "]: expected " + e + " got " + a + " (diff " + diff + " = " + diff / scale
                        + " fp16 ulps, allowed " + ulps + " ulps + " + absolute + ")");
            }
        }
        return worstUlps;
    }

    static double maxAbsDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs((double) a[i] - b[i]));
        }
        return m;
    }

    static double maxAbs(float[] a) {
        double m = 0;
        for (float v : a) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }
}
