package dev.flux2.testkit;

/**
 * SplitMix64: a tiny, fully specified generator so the writer and the reference derive identical weights from
 * (seed, tensor name) on every JDK, independently of the order tensors are generated in.
 */
final class DeterministicRandom {
    private long state;

    DeterministicRandom(long seed, String stream) {
        this.state = seed ^ (0x9E37_79B9_7F4A_7C15L * (stream.hashCode() + 0x1234_5678L));
        // Decorrelate nearby seeds before the first draw.
        nextLong();
        nextLong();
    }

    long nextLong() {
        long z = (state += 0x9E37_79B9_7F4A_7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** @return a float uniform in [0, 1) with 24 random bits */
    float nextFloat() {
        return (nextLong() >>> 40) * 0x1p-24f;
    }

    /** @return a float uniform in [lo, hi) */
    float uniform(float lo, float hi) {
        return lo + (hi - lo) * nextFloat();
    }

    /** @return an int uniform in [0, bound) */
    int nextInt(int bound) {
        return (int) ((nextLong() >>> 33) % bound);
    }

    float[] uniformArray(int n, float lo, float hi) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = uniform(lo, hi);
        }
        return a;
    }
}
