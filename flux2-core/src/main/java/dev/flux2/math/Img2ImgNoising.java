package dev.flux2.math;

import dev.flux2.api.RequestRules;
import java.util.Objects;

/**
 * Strength-based image-to-image, following the diffusers klein INPAINT pipeline (which is plain img2img with an
 * all-white mask): where to enter the schedule, and how to noise the init latent. Stateless and thread-safe.
 */
public final class Img2ImgNoising {
    private Img2ImgNoising() {}

    /**
     * The first schedule index to run ({@code get_timesteps}); the rule is the request's,
     * {@link RequestRules#startIndex}, which validates a request before any model work.
     *
     * @param steps the full step count n, at least 1
     * @param strength how much of the schedule to run, in [0, 1]
     * @return t_start, such that at least one step remains
     * @throws dev.flux2.api.InvalidRequestException if steps is below 1, strength is outside [0, 1], or the pair
     *     leaves no step to run (e.g. strength 0)
     */
    public static int startIndex(int steps, double strength) {
        return RequestRules.startIndex(steps, strength);
    }

    /**
     * diffusers {@code scale_noise}: {@code sigma·noise + (1 − sigma)·x0} in float32.
     *
     * @param x0 the clean (BN-normalised, patchified or packed) init latent; not modified
     * @param noise the noise, same length and layout; not modified
     * @param sigma σ at the start index
     * @return a new array with the noised latent
     * @throws IllegalArgumentException if the lengths differ
     */
    public static float[] scaleNoise(float[] x0, float[] noise, float sigma) {
        Objects.requireNonNull(x0, "x0");
        Objects.requireNonNull(noise, "noise");
        if (x0.length != noise.length) {
            throw new IllegalArgumentException(
                    "noise must have the init latent's length " + x0.length + ", got " + noise.length);
        }
        float keep = 1f - sigma;
        float[] out = new float[x0.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = sigma * noise[i] + keep * x0[i];
        }
        return out;
    }
}
