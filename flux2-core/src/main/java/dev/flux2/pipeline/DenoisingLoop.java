package dev.flux2.pipeline;

import dev.flux2.math.EulerSampler;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.MaskBlending;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the transformer over the schedule for one request's images: per step (Euler update on the host, with
 * classifier-free guidance when enabled) or in one fused call. Reuses its velocity buffers across steps and images;
 * not thread-safe.
 */
final class DenoisingLoop {
    private static final Logger LOG = LoggerFactory.getLogger(DenoisingLoop.class);

    private final DenoiserSession session;
    private final TextConditioning text;
    private final ResolvedRequest request;
    private final GenerationContext context;
    private final float[] velocity;
    private final float[] negativeVelocity;
    /** Null without previews: then a step costs one null check more. */
    private final PreviewRenderer previews;

    /**
     * @param session the open denoiser (not closed here)
     * @param text the request's text conditioning (not closed here)
     * @param request the resolved request (schedule, start index, guidance)
     * @param context the request's context
     * @param previews the live previews, or null
     */
    DenoisingLoop(
            DenoiserSession session,
            TextConditioning text,
            ResolvedRequest request,
            GenerationContext context,
            PreviewRenderer previews) {
        this.session = session;
        this.previews = previews;
        this.text = text;
        this.request = request;
        this.context = context;
        int values = request.size().latentValues();
        this.velocity = new float[values];
        this.negativeVelocity = request.guidance().classifierFree() ? new float[values] : null;
    }

    /**
     * Runs steps {@code startIndex … n−1}, updating the latent in place: {@code x ← x + (σ_{i+1} − σ_i)·v}.
     * Checks cancellation before every step and reports one {@code ADVANCED} event per step, then the step's live
     * preview when one is asked for.
     *
     * @param x N·128 packed latent tokens; overwritten with the result
     * @param image the image index, for messages and events
     * @param span the image's running DENOISE stage
     * @param inpainting for inpainting, what each step's result is blended with (docs/pipeline-reference.md §15);
     *     null otherwise
     */
    void runSteps(float[] x, int image, GenerationContext.StageSpan span, Inpainting inpainting) {
        FlowMatchSchedule schedule = request.schedule();
        int n = schedule.steps();
        int start = request.startIndex();
        for (int i = start; i < n; i++) {
            DenoiseStep step = new DenoiseStep(i, n, schedule.sigma(i), schedule.sigma(i + 1));
            String where = "denoise " + step.label() + " of image " + (image + 1);
            long begin = System.nanoTime();
            predict(step, x, where);
            int completed = i - start + 1;
            boolean preview = previews != null && previews.previewsAfter(completed, n - start);
            if (preview) {
                // x̂₀ needs the step's input latent, which the Euler update overwrites
                previews.predictClean(x, velocity, step.sigma(), inpainting);
            }
            EulerSampler.step(x, velocity, step.sigma(), step.sigmaNext());
            if (inpainting != null) {
                MaskBlending.blend(
                        x, inpainting.x0(), inpainting.noise(), inpainting.tokenMask(), step.sigmaNext(), i == n - 1);
            }
            if (i == n - 1) {
                FiniteCheck.require(x, x.length, "the final latent of image " + (image + 1));
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug(
                        "Image {} {}: sigma {} -> {} in {} ms",
                        image + 1,
                        step.label(),
                        step.sigma(),
                        step.sigmaNext(),
                        (System.nanoTime() - begin) / 1_000_000);
            }
            span.advanced(completed);
            if (preview) {
                previews.emit(image, completed, n - start);
            }
        }
    }

    /**
     * The per-image inputs of the inpainting blend.
     *
     * @param x0 the packed clean init latent, N·128
     * @param noise the packed initial noise of the image, N·128
     * @param tokenMask one mask value per token
     */
    record Inpainting(float[] x0, float[] noise, float[] tokenMask) {}

    private void predict(DenoiseStep step, float[] x, String where) {
        context.run(where, () -> session.predictVelocity(step, x, text.positive(), velocity));
        FiniteCheck.require(velocity, velocity.length, "the transformer's prediction at " + where);
        if (negativeVelocity == null) {
            return;
        }
        context.run(
                where + " (negative prompt)",
                () -> session.predictVelocity(step, x, text.negative(), negativeVelocity));
        FiniteCheck.require(
                negativeVelocity,
                negativeVelocity.length,
                "the transformer's prediction at " + where + " (negative prompt)");
        // The reference combines float32 tensors with the scale cast to float32.
        float scale = (float) request.guidance().scale();
        for (int j = 0; j < velocity.length; j++) {
            velocity[j] = negativeVelocity[j] + scale * (velocity[j] - negativeVelocity[j]);
        }
    }

    /**
     * Runs the whole schedule in one call of the fused denoiser graph.
     *
     * @param x N·128 packed initial latent tokens; overwritten with the result
     * @param image the image index, for messages
     */
    void runFused(float[] x, int image) {
        long begin = System.nanoTime();
        float[] sigmas = request.schedule().sigmas();
        String where = "fused " + request.steps() + "-step denoise of image " + (image + 1);
        context.run(where, () -> session.denoiseFused(sigmas, x, text.positive()));
        FiniteCheck.require(x, x.length, "the latent of the " + where);
        LOG.debug(
                "Image {}: fused {}-step denoise in {} ms",
                image + 1,
                request.steps(),
                (System.nanoTime() - begin) / 1_000_000);
    }
}
