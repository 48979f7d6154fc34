package dev.flux2.spi;

/**
 * One step of the sampler.
 *
 * @param index step index within the schedule (0-based; img2img starts above 0)
 * @param total the schedule's step count n
 * @param sigma σ_i of the schedule (σ in [0, 1], not ×1000)
 * @param sigmaNext σ_{i+1}
 */
public record DenoiseStep(int index, int total, float sigma, float sigmaNext) {
    /** The scheduler's timestep scale: diffusers' timesteps are σ·1000. */
    private static final float TRAIN_TIMESTEPS = 1000f;

    /**
     * The value diffusers' {@code Flux2KleinPipeline} passes to its transformer at this step, in float32: the
     * scheduler's timestep {@code fl32(1000·σ)} divided by 1000, {@code fl32(fl32(1000σ)/1000)}. It is σ or one
     * float32 ulp away from it (docs/pipeline-reference.md §6).
     *
     * @return the transformer's timestep in [0, 1]
     */
    public float transformerTimestep() {
        return (sigma * TRAIN_TIMESTEPS) / TRAIN_TIMESTEPS;
    }

    /** @return a label such as {@code "step 2/4"} for messages */
    public String label() {
        return "step " + (index + 1) + "/" + total;
    }
}
