package dev.flux2.spi;

/**
 * One step of the sampler.
 *
 * @param index step index within the schedule (0-based; img2img starts above 0)
 * @param total the schedule's step count n
 * @param sigma σ_i, fed to the transformer as its timestep (σ in [0, 1], not ×1000)
 * @param sigmaNext σ_{i+1}
 */
public record DenoiseStep(int index, int total, float sigma, float sigmaNext) {
    /** @return a label such as {@code "step 2/4"} for messages */
    public String label() {
        return "step " + (index + 1) + "/" + total;
    }
}
