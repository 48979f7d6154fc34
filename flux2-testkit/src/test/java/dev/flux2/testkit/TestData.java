package dev.flux2.testkit;

import java.util.Random;

/** Random test inputs (java.util.Random with fixed seeds). */
final class TestData {
    private TestData() {}

    static float[] gaussian(Random rnd, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) rnd.nextGaussian();
        }
        return a;
    }

    static float[] uniform(Random rnd, int n, float lo, float hi) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = lo + (hi - lo) * rnd.nextFloat();
        }
        return a;
    }

    static float[] concat(float[] a, float[] b) {
        float[] out = new float[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
