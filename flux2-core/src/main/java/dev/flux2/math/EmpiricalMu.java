package dev.flux2.math;

import dev.flux2.api.InvalidRequestException;

/**
 * The schedule shift {@code mu} of FLUX.2 [klein]: diffusers {@code compute_empirical_mu} (identical in BFL
 * {@code sampling.py}), evaluated in {@code double} in the reference's order of operations so that the result
 * matches Python to the last bit. Stateless and thread-safe.
 *
 * <p>The function is discontinuous at {@code imageSeqLen} 4300/4301: above 4300 tokens the step count is ignored.
 * This is the reference behaviour, reproduced on purpose.
 */
public final class EmpiricalMu {
    /** Sequence lengths above this use the step-independent branch. */
    public static final int LONG_SEQUENCE_THRESHOLD = 4300;

    private static final double A1 = 8.73809524e-05;
    private static final double B1 = 1.89833333;
    private static final double A2 = 0.00016927;
    private static final double B2 = 0.45666666;

    private EmpiricalMu() {}

    /**
     * @param imageSeqLen number of image tokens N = (H/16)·(W/16), at least 1
     * @param steps number of denoising steps, at least 1 (ignored above 4300 tokens)
     * @return mu, the log of the exponential time-shift factor
     * @throws InvalidRequestException if either argument is below 1
     */
    public static double compute(int imageSeqLen, int steps) {
        if (imageSeqLen < 1) {
            throw new InvalidRequestException("imageSeqLen must be at least 1, got " + imageSeqLen);
        }
        if (steps < 1) {
            throw new InvalidRequestException("steps must be at least 1, got " + steps);
        }
        double s = imageSeqLen;
        if (imageSeqLen > LONG_SEQUENCE_THRESHOLD) {
            return A2 * s + B2;
        }
        double m200 = A2 * s + B2;
        double m10 = A1 * s + B1;
        double a = (m200 - m10) / 190.0;
        double b = m200 - 200.0 * a;
        return a * steps + b;
    }
}
