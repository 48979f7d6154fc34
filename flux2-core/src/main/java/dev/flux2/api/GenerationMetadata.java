package dev.flux2.api;

import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Everything needed to reproduce one generated image.
 *
 * @param prompt the prompt, verbatim
 * @param seed the noise seed; empty when explicit noise was supplied
 * @param steps the schedule's step count n
 * @param stepsRun transformer steps actually run (n for text-to-image, fewer for img2img)
 * @param width image width in pixels
 * @param height image height in pixels
 * @param guidance the guidance scale in effect (1 when the model is distilled)
 * @param strength the img2img strength, when an init image was used
 * @param referenceCount number of reference images
 * @param fused whether the fused multi-step denoiser graph ran instead of per-step calls
 * @param truncatedTokens prompt tokens cut because the prompt exceeded the text sequence length
 * @param modelVariant the model's variant label
 * @param timings per-stage wall times of this image
 * @param warnings what the caller should know about how the image was made, for example that the init image could
 *     not influence it (also logged at WARN); empty when nothing
 */
public record GenerationMetadata(
        String prompt,
        OptionalLong seed,
        int steps,
        int stepsRun,
        int width,
        int height,
        double guidance,
        OptionalDouble strength,
        int referenceCount,
        boolean fused,
        int truncatedTokens,
        String modelVariant,
        StageTimings timings,
        List<String> warnings) {

    /** Checks for nulls and copies the warnings. */
    public GenerationMetadata {
        warnings = List.copyOf(warnings);
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(seed, "seed");
        Objects.requireNonNull(strength, "strength");
        Objects.requireNonNull(modelVariant, "modelVariant");
        Objects.requireNonNull(timings, "timings");
    }

    /**
     * Metadata without warnings.
     *
     * @param prompt the prompt
     * @param seed the seed
     * @param steps the step count n
     * @param stepsRun the steps run
     * @param width the width
     * @param height the height
     * @param guidance the guidance
     * @param strength the img2img strength
     * @param referenceCount the reference count
     * @param fused whether the fused graph ran
     * @param truncatedTokens truncated prompt tokens
     * @param modelVariant the variant
     * @param timings the timings
     */
    public GenerationMetadata(
            String prompt,
            OptionalLong seed,
            int steps,
            int stepsRun,
            int width,
            int height,
            double guidance,
            OptionalDouble strength,
            int referenceCount,
            boolean fused,
            int truncatedTokens,
            String modelVariant,
            StageTimings timings) {
        this(
                prompt,
                seed,
                steps,
                stepsRun,
                width,
                height,
                guidance,
                strength,
                referenceCount,
                fused,
                truncatedTokens,
                modelVariant,
                timings,
                List.of());
    }
}
