package dev.flux2.pipeline;

import dev.flux2.math.FlowMatchSchedule;
import java.util.List;
import java.util.OptionalDouble;

/**
 * A request with every default filled in from the model and every model-dependent check done.
 *
 * @param prompt the prompt, verbatim
 * @param negativePrompt the negative prompt (encoded only under classifier-free guidance)
 * @param size the working (output) size
 * @param schedule the full n-step sigma schedule for this size
 * @param startIndex the first step to run: 0 for text-to-image, t_start for img2img
 * @param guidance the guidance in effect
 * @param noise the initial noise of each image
 * @param strength the img2img strength in effect, when an init image is used
 * @param numImages images to generate
 * @param images the prepared init and reference images
 * @param warnings what the caller should know about the request (for example an init image that cannot influence
 *     the result)
 */
record ResolvedRequest(
        String prompt,
        String negativePrompt,
        WorkingSize size,
        FlowMatchSchedule schedule,
        int startIndex,
        GuidancePlan guidance,
        LatentNoise noise,
        OptionalDouble strength,
        int numImages,
        PreparedImages images,
        List<String> warnings) {

    /** Copies the warnings. */
    ResolvedRequest {
        warnings = List.copyOf(warnings);
    }

    /** @return n, the schedule's step count */
    int steps() {
        return schedule.steps();
    }

    /** @return the transformer steps each image runs: n − startIndex */
    int stepsRun() {
        return schedule.steps() - startIndex;
    }
}
