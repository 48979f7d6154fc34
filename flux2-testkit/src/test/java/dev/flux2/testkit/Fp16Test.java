package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** binary16 conversion checked against its definition (nearest value, ties to even), not another converter. */
class Fp16Test {

    @Test
    void everyHalfRoundTripsExactly() {
        for (int h = 0; h < 0x10000; h++) {
            float f = Fp16.toFloat((short) h);
            if (Float.isNaN(f)) {
                assertTrue((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0, "NaN only for NaN encodings: " + h);
                assertTrue(Float.isNaN(Fp16.toFloat(Fp16.fromFloat(f))));
                continue;
            }
            assertEquals((short) h, Fp16.fromFloat(f), "round trip of 0x" + Integer.toHexString(h));
        }
    }

    @Test
    void knownValues() {
        assertEquals(65504f, Fp16.toFloat((short) 0x7bff));
        assertEquals(0x1p-24f, Fp16.toFloat((short) 0x0001));
        assertEquals(0x1p-14f, Fp16.toFloat((short) 0x0400));
        assertEquals(1f, Fp16.toFloat((short) 0x3c00));
        assertEquals(-2f, Fp16.toFloat((short) 0xc000));
        assertEquals((short) 0x7c00, Fp16.fromFloat(65520f), "65520 is the tie above 65504 and rounds to inf");
        assertEquals((short) 0x7bff, Fp16.fromFloat(65519.99f));
        assertEquals((short) 0x0000, Fp16.fromFloat(0x1p-25f), "tie between 0 and the smallest subnormal → even (0)");
        assertEquals((short) 0x0001, Fp16.fromFloat(Math.nextUp(0x1p-25f)));
        assertEquals((short) 0x0002, Fp16.fromFloat(3 * 0x1p-25f), "tie 1.5 units → even (2)");
        assertEquals((short) 0x3c00, Fp16.fromFloat(1 + 0x1p-11f), "tie at 1 + half ulp → even (1)");
        assertEquals((short) 0x3c02, Fp16.fromFloat(1 + 3 * 0x1p-11f), "tie at 1 + 1.5 ulp → even (1 + 2 ulp)");
        assertEquals((short) 0x8000, Fp16.fromFloat(-0f));
        assertEquals((short) 0xfc00, Fp16.fromFloat(Float.NEGATIVE_INFINITY));
        assertEquals(0x1p-10f, Fp16.ulp(1f));
        assertEquals(0x1p-24f, Fp16.ulp(1e-6f));
        assertEquals(32f, Fp16.ulp(70000f));
    }

    /** For random floats the result is a nearest half; on an exact tie it has an even mantissa. */
    @Test
    void randomFloatsRoundToNearestEven() {
        Random rnd = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            float f = Float.intBitsToFloat(rnd.nextInt());
            if (!Float.isFinite(f) || Math.abs(f) > 65504f) {
                continue;
            }
            short h = Fp16.fromFloat(f);
            double chosen = Math.abs((double) Fp16.toFloat(h) - f);
            double below = Math.abs((double) Fp16.toFloat((short) (h - 1)) - f);
            double above = (h & 0x7fff) == 0x7bff
                    ? Double.POSITIVE_INFINITY
                    : Math.abs((double) Fp16.toFloat((short) (h + 1)) - f);
            if ((h & 0x7fff) == 0) {
                below = Double.POSITIVE_INFINITY;
            }
            assertTrue(chosen <= below && chosen <= above, "not nearest for " + f);
            if (chosen == below || chosen == above) {
                assertEquals(0, h & 1, "tie must go to even for " + f);
            }
        }
    }
}
