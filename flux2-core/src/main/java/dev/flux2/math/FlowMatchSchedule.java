package dev.flux2.math;

import dev.flux2.api.InvalidRequestException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The FLUX.2 [klein] sigma schedule: diffusers {@code FlowMatchEulerDiscreteScheduler.set_timesteps(sigmas, mu)}
 * with dynamic, exponential shifting. Immutable and thread-safe.
 *
 * <p>The unshifted sigmas are {@code np.linspace(1, 1/n, n)} in float64 cast to float32; each is shifted with
 * {@code σ = e / (e + (1/t − 1))}, {@code e = (float) exp(mu)}, entirely in float32 (as numpy does once the
 * Python scalar meets the float32 array). A final σ = 0 is appended. This reproduces the reference schedules bit
 * for bit; computing in double instead would differ by about one float32 ulp.
 */
public final class FlowMatchSchedule {
    /** The scheduler's {@code num_train_timesteps}: timesteps are σ·1000. */
    private static final float TRAIN_TIMESTEPS = 1000f;

    private final double mu;
    private final float[] sigmas;

    private FlowMatchSchedule(double mu, float[] sigmas) {
        this.mu = mu;
        this.sigmas = sigmas;
    }

    /**
     * The default schedule for a generation: mu from {@link EmpiricalMu} and {@code steps} linearly spaced sigmas.
     *
     * @param imageSeqLen number of image tokens N = (H/16)·(W/16), at least 1
     * @param steps number of denoising steps, at least 1
     * @return the schedule
     * @throws InvalidRequestException if an argument is below 1
     */
    public static FlowMatchSchedule forImage(int imageSeqLen, int steps) {
        double mu = EmpiricalMu.compute(imageSeqLen, steps);
        return new FlowMatchSchedule(mu, shift(mu, linspace(steps)));
    }

    /**
     * A schedule from caller-supplied unshifted sigmas (diffusers {@code sigmas=}): the same exponential shift is
     * applied to the given list, with mu computed from {@code imageSeqLen} and the list length.
     *
     * @param imageSeqLen number of image tokens, at least 1
     * @param unshiftedSigmas one value per step, each in (0, 1]; not modified
     * @return the schedule, with {@code unshiftedSigmas.length} steps
     * @throws InvalidRequestException if the list is empty or a value is outside (0, 1]
     */
    public static FlowMatchSchedule withCustomSigmas(int imageSeqLen, float[] unshiftedSigmas) {
        Objects.requireNonNull(unshiftedSigmas, "unshiftedSigmas");
        if (unshiftedSigmas.length < 1) {
            throw new InvalidRequestException("sigmas must contain at least one value, got none");
        }
        for (int i = 0; i < unshiftedSigmas.length; i++) {
            float s = unshiftedSigmas[i];
            if (!(s > 0f && s <= 1f)) {
                throw new InvalidRequestException("sigmas[" + i + "] must be in (0, 1], got " + s);
            }
        }
        double mu = EmpiricalMu.compute(imageSeqLen, unshiftedSigmas.length);
        return new FlowMatchSchedule(mu, shift(mu, unshiftedSigmas.clone()));
    }

    /** numpy {@code linspace(1.0, 1/n, n)}: {@code i·step + 1.0} in float64, last entry exactly 1/n. */
    private static float[] linspace(int n) {
        float[] lin = new float[n];
        double stop = 1.0 / n;
        if (n == 1) {
            lin[0] = 1f;
            return lin;
        }
        double step = (stop - 1.0) / (n - 1);
        for (int i = 0; i < n; i++) {
            lin[i] = (float) (i * step + 1.0);
        }
        lin[n - 1] = (float) stop;
        return lin;
    }

    /** Shifts {@code t} in place (float32 arithmetic) and returns it extended by the terminal zero. */
    private static float[] shift(double mu, float[] t) {
        float em = (float) Math.exp(mu);
        float[] out = Arrays.copyOf(t, t.length + 1);
        for (int i = 0; i < t.length; i++) {
            out[i] = em / (em + (1f / t[i] - 1f));
        }
        out[t.length] = 0f;
        return out;
    }

    /** @return the number of denoising steps n */
    public int steps() {
        return sigmas.length - 1;
    }

    /** @return the shift mu the schedule was built with (double, as the reference computes it) */
    public double mu() {
        return mu;
    }

    /** @return a copy of the n + 1 sigmas, decreasing from 1 (for the default schedule) to a final 0 */
    public float[] sigmas() {
        return sigmas.clone();
    }

    /**
     * @param index 0..steps (inclusive; {@code sigma(steps)} is 0)
     * @return σ at that index
     * @throws IndexOutOfBoundsException if the index is outside 0..steps
     */
    public float sigma(int index) {
        Objects.checkIndex(index, sigmas.length);
        return sigmas[index];
    }

    /** @return a new array of the n scheduler timesteps σ·1000 (float32); the terminal zero is not included */
    public float[] timesteps() {
        int n = steps();
        float[] t = new float[n];
        for (int i = 0; i < n; i++) {
            t[i] = sigmas[i] * TRAIN_TIMESTEPS;
        }
        return t;
    }

    /**
     * The value an fp32 diffusers transformer receives at a step: {@code fl32(fl32(1000σ)/1000)}, which can differ
     * from σ by one ulp.
     *
     * @param index step index 0..steps−1
     * @return the transformer timestep in [0, 1]
     * @throws IndexOutOfBoundsException if the index is outside 0..steps−1
     */
    public float transformerTimestep(int index) {
        Objects.checkIndex(index, steps());
        return (sigmas[index] * TRAIN_TIMESTEPS) / TRAIN_TIMESTEPS;
    }

    @Override
    public String toString() {
        return "FlowMatchSchedule[steps=" + steps() + ", mu=" + mu + ", sigmas=" + Arrays.toString(sigmas) + "]";
    }
}
