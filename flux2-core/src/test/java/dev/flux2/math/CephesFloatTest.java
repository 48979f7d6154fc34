package dev.flux2.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The Cephes approximations must stay within a few ulps of the exact functions over torch's argument ranges. */
class CephesFloatTest {
    @Test
    void logIsAccurateOnTheUniformRange() {
        // u1 = 1 − u ranges over (0, 1] in steps of 2^-24
        for (int k = 1; k <= (1 << 24); k += 997) {
            float u = k / (float) (1 << 24);
            double exact = Math.log(u);
            float approx = CephesFloat.log(u);
            assertTrue(
                    Math.abs(approx - exact) <= 2 * Math.ulp((float) exact) + 1e-12,
                    "log(" + u + ") = " + approx + ", exact " + exact);
        }
        assertEquals(0f, CephesFloat.log(1f));
        assertTrue(Float.isNaN(CephesFloat.log(0f)));
        assertTrue(Float.isNaN(CephesFloat.log(-1f)));
    }

    @Test
    void sinCosAreAccurateOnOneTurn() {
        float[] out = new float[2];
        float twoPi = (float) (2 * Math.PI);
        for (int k = 0; k < (1 << 20); k += 61) {
            float theta = twoPi * (k / (float) (1 << 20));
            CephesFloat.scaledSinCos(theta, 1f, out, 0, 1);
            assertEquals(Math.cos(theta), out[0], 3e-7, "cos " + theta);
            assertEquals(Math.sin(theta), out[1], 3e-7, "sin " + theta);
        }
        CephesFloat.scaledSinCos(-0.5f, 2f, out, 0, 1);
        assertEquals(2 * Math.cos(-0.5), out[0], 1e-6);
        assertEquals(2 * Math.sin(-0.5), out[1], 1e-6);
    }
}
