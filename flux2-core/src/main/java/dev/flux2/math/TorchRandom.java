package dev.flux2.math;

import java.util.Objects;

/**
 * Reproduces {@code torch.randn(shape, generator=torch.Generator("cpu").manual_seed(seed), dtype=torch.float32)}.
 *
 * <p>What torch does (ATen {@code CPUGeneratorImpl}, {@code core/DistributionsHelper.h},
 * {@code native/cpu/DistributionTemplates.h}, {@code native/cpu/DistributionKernels.cpp}):
 * <ul>
 *   <li>The engine is a 32-bit Mersenne Twister (mt19937) initialised from the low 32 bits of the seed with the
 *       standard Knuth recurrence; {@code random64()} joins two draws, the first as the high word.</li>
 *   <li><b>numel ≥ 16</b> (contiguous float32): every element first gets a float uniform
 *       {@code (u32 & 0xFFFFFF)·2⁻²⁴}; then each full block of 16 is Box–Muller transformed in float32 with
 *       {@code u1 = 1 − d[j]} (j &lt; 8) and {@code u2 = d[j+8]}, giving {@code r·cos θ} at j and {@code r·sin θ}
 *       at j+8. If numel is not a multiple of 16, the last 16 elements are refilled with fresh uniforms and
 *       transformed again (overlapping the previous block).</li>
 *   <li><b>numel &lt; 16</b>: each element is a double-precision {@code at::normal_distribution<double>} sample
 *       from 53-bit uniforms of {@code random64()}, {@code r = sqrt(−2·log1p(−u2))}, {@code θ = 2π·u1}; it returns
 *       {@code r·cos θ} and caches {@code r·sin θ} in the generator for the next scalar draw.</li>
 * </ul>
 * The 16-wide transform follows torch's x86-64 build, which runs {@code normal_fill_16_AVX2}: θ is a float32
 * product and log/sincos are the Cephes approximations of {@code avx_mathfun.h} (see {@link CephesFloat}), not
 * correctly rounded functions. This reproduces the golden samples bit for bit; torch builds without AVX2 (e.g.
 * aarch64) use libm instead and differ from these values by up to a few float32 ulps.
 *
 * <p>Not thread-safe: the state advances with every call exactly as torch's CPU generator does, so consecutive
 * calls continue one stream (including the cached scalar normal).
 */
public final class TorchRandom {
    private static final int N = 624;
    private static final int M = 397;
    private static final int MATRIX_A = 0x9908b0df;
    private static final int UPPER_MASK = 0x80000000;
    private static final int LOWER_MASK = 0x7fffffff;
    /** Width of torch's vectorised normal fill. */
    private static final int BLOCK = 16;

    private static final float FLOAT_UNIT = 1.0f / (1 << 24);
    private static final double DOUBLE_UNIT = 1.0 / (1L << 53);
    private static final float TWO_PI_F = (float) (2.0 * Math.PI);

    private final int[] state = new int[N];
    private int left;
    private int next;
    private boolean hasCachedNormal;
    private double cachedNormal;

    /**
     * Seeds like {@code torch.Generator("cpu").manual_seed(seed)}: only the low 32 bits of the seed matter to the
     * engine, and no cached normal is carried over.
     *
     * @param seed the seed (negative Python seeds map to their two's-complement bit pattern, as in torch)
     */
    public TorchRandom(long seed) {
        state[0] = (int) seed;
        for (int j = 1; j < N; j++) {
            int prev = state[j - 1];
            state[j] = 1812433253 * (prev ^ (prev >>> 30)) + j;
        }
        left = 1;
        next = 0;
    }

    /**
     * One-shot sampling with a fresh generator.
     *
     * <p>Pass the seed as a {@code long} ({@code 42L} or a {@code long} variable): with an {@code int} literal,
     * {@code TorchRandom.randn(42, 1, 128, 64, 64)} resolves to the instance method {@link #randn(int...)} and does
     * not compile.
     *
     * @param seed the seed
     * @param shape the tensor shape (C order)
     * @return {@code numel} standard-normal float32 values
     */
    public static float[] randn(long seed, int... shape) {
        return new TorchRandom(seed).randn(shape);
    }

    /**
     * Draws the next tensor of standard normals, advancing the generator.
     *
     * @param shape the tensor shape, e.g. {@code 1, 128, H/16, W/16}; each dimension non-negative
     * @return a new array of {@code numel} values in C order
     * @throws IllegalArgumentException if a dimension is negative or numel does not fit an int array
     */
    public float[] randn(int... shape) {
        Objects.requireNonNull(shape, "shape");
        long numel = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new IllegalArgumentException("shape[" + i + "] must be non-negative, got " + shape[i]);
            }
            numel *= shape[i];
            if (numel > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("shape has too many elements for one array");
            }
        }
        float[] out = new float[(int) numel];
        if (out.length >= BLOCK) {
            fillVectorised(out);
        } else {
            for (int i = 0; i < out.length; i++) {
                out[i] = (float) nextDoubleNormal();
            }
        }
        return out;
    }

    private void fillVectorised(float[] data) {
        int size = data.length;
        for (int i = 0; i < size; i++) {
            data[i] = nextFloatUniform();
        }
        for (int i = 0; i + BLOCK <= size; i += BLOCK) {
            normalFill16(data, i);
        }
        if (size % BLOCK != 0) {
            int start = size - BLOCK;
            for (int i = start; i < size; i++) {
                data[i] = nextFloatUniform();
            }
            normalFill16(data, start);
        }
    }

    /**
     * ATen {@code normal_fill_16_AVX2} with mean 0 and std 1: {@code u1 = 1 − d[j]}, {@code u2 = d[j+8]},
     * {@code r = sqrt(−2·log u1)}, {@code θ = 2π·u2} (float32 product), with the Cephes log and sincos.
     */
    private static void normalFill16(float[] d, int at) {
        for (int j = at; j < at + 8; j++) {
            float u1 = 1f - d[j];
            float u2 = d[j + 8];
            float radius = (float) Math.sqrt(-2f * CephesFloat.log(u1));
            float theta = TWO_PI_F * u2;
            CephesFloat.scaledSinCos(theta, radius, d, j, j + 8);
        }
    }

    /** {@code at::normal_distribution<double>} with the generator's cached second sample. */
    private double nextDoubleNormal() {
        if (hasCachedNormal) {
            hasCachedNormal = false;
            return cachedNormal;
        }
        double u1 = nextDoubleUniform();
        double u2 = nextDoubleUniform();
        double r = Math.sqrt(-2.0 * Math.log1p(-u2));
        double theta = 2.0 * Math.PI * u1;
        cachedNormal = r * Math.sin(theta);
        hasCachedNormal = true;
        return r * Math.cos(theta);
    }

    /** {@code uniform_real_distribution<float>(0, 1)}: 24 random bits. */
    private float nextFloatUniform() {
        return (nextInt() & 0xFFFFFF) * FLOAT_UNIT;
    }

    /** {@code uniform_real_distribution<double>(0, 1)}: 53 random bits of {@code random64()}. */
    private double nextDoubleUniform() {
        long hi = nextInt() & 0xFFFFFFFFL;
        long lo = nextInt() & 0xFFFFFFFFL;
        return (((hi << 32) | lo) & ((1L << 53) - 1)) * DOUBLE_UNIT;
    }

    /** One tempered mt19937 output, as an unsigned 32-bit pattern in an int. */
    private int nextInt() {
        if (--left == 0) {
            nextState();
        }
        int y = state[next++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y;
    }

    private void nextState() {
        left = N;
        next = 0;
        int i = 0;
        for (; i < N - M; i++) {
            state[i] = state[i + M] ^ twist(state[i], state[i + 1]);
        }
        for (; i < N - 1; i++) {
            state[i] = state[i + M - N] ^ twist(state[i], state[i + 1]);
        }
        state[N - 1] = state[M - 1] ^ twist(state[N - 1], state[0]);
    }

    private static int twist(int u, int v) {
        int mixed = (u & UPPER_MASK) | (v & LOWER_MASK);
        return (mixed >>> 1) ^ ((v & 1) != 0 ? MATRIX_A : 0);
    }
}
