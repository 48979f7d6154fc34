package dev.flux2.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Element-wise array assertions whose failure message names the first offending index. */
public final class ArrayAsserts {
    private ArrayAsserts() {}

    /**
     * Asserts equal lengths and {@code |expected[i] − actual[i]| <= absTol} for every i.
     *
     * @param expected reference values
     * @param actual computed values
     * @param absTol absolute tolerance
     * @param what names the quantity in the failure message
     */
    public static void assertClose(float[] expected, float[] actual, double absTol, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        double worst = 0;
        int worstAt = -1;
        for (int i = 0; i < expected.length; i++) {
            double d = Math.abs((double) expected[i] - actual[i]);
            if (!(d <= absTol) && !(Float.isNaN(expected[i]) && Float.isNaN(actual[i]))) {
                if (worstAt < 0 || d > worst) {
                    worst = d;
                    worstAt = i;
                }
            }
        }
        if (worstAt >= 0) {
            fail(what + ": |Δ| up to " + worst + " > " + absTol + " at index " + worstAt + " (expected "
                    + expected[worstAt] + ", got " + actual[worstAt] + ")");
        }
    }

    /**
     * Asserts equal lengths and bit-identical float32 values.
     *
     * @param expected reference values
     * @param actual computed values
     * @param what names the quantity in the failure message
     */
    public static void assertBitExact(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (Float.floatToIntBits(expected[i]) != Float.floatToIntBits(actual[i])) {
                fail(what + ": index " + i + " expected " + expected[i] + " but got " + actual[i] + " ("
                        + Math.round((actual[i] - expected[i]) / Math.ulp(expected[i])) + " ulp)");
            }
        }
    }
}
