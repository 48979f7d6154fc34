package dev.flux2.math;

import java.util.Objects;

/**
 * The flow-matching Euler update of diffusers {@code FlowMatchEulerDiscreteScheduler.step}:
 * {@code x ← x + (σ_next − σ)·v}, with the step {@code dt} computed as a float32 difference and every operation in
 * float32. Stateless and thread-safe (the arrays are the caller's).
 */
public final class EulerSampler {
    private EulerSampler() {}

    /**
     * Advances the latent by one step. Mutates {@code x} in place.
     *
     * @param x the current latent (packed tokens), updated in place
     * @param velocity the model prediction for {@code x}, same length; not modified
     * @param sigma σ of the current step
     * @param sigmaNext σ of the next step (0 after the last step)
     * @throws IllegalArgumentException if the lengths differ
     */
    public static void step(float[] x, float[] velocity, float sigma, float sigmaNext) {
        Objects.requireNonNull(x, "x");
        Objects.requireNonNull(velocity, "velocity");
        if (x.length != velocity.length) {
            throw new IllegalArgumentException(
                    "velocity must have the latent's length " + x.length + ", got " + velocity.length);
        }
        float dt = sigmaNext - sigma;
        for (int i = 0; i < x.length; i++) {
            x[i] += dt * velocity[i];
        }
    }
}
