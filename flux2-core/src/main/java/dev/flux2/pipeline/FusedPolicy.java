package dev.flux2.pipeline;

import dev.flux2.api.ModelInfo;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.FusedSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a request runs the bundle's fused multi-step denoiser. It is used only when the step count
 * equals the graph's, the request has no init or reference images, guidance needs one pass per step, no live previews are asked for
 * (they need the latent after each step) and the backend says the graph can run (a backend told not to use its fused graph reports none in its model info). When only the
 * backend's answer stands in the way, its reason is logged at INFO: a silently slower path is a bug report waiting to
 * happen.
 */
final class FusedPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(FusedPolicy.class);

    private static final String PREVIEWS = "live previews need the latent after every step";

    private FusedPolicy() {}

    /**
     * @param request the resolved request
     * @param model the model (its fused step count)
     * @param previews whether live previews are asked for (they need the latent after each step)
     * @param session the open denoiser, asked whether it can run the schedule fused
     * @param context the request's context (the question is a backend call)
     * @return whether to call {@link DenoiserSession#denoiseFused}
     */
    static boolean useFused(
            ResolvedRequest request,
            ModelInfo model,
            boolean previews,
            DenoiserSession session,
            GenerationContext context) {
        String ruledOut = ruledOutBy(request, model, previews);
        if (PREVIEWS.equals(ruledOut)) {
            // INFO, unlike the other reasons: the fused graph would have run, and its result can differ in the last
            // bits from the per-step one
            LOG.info("Denoising per step, not with the fused {}-step graph: {}", model.fusedSteps(), ruledOut);
            return false;
        }
        if (ruledOut != null) {
            LOG.debug("Denoising per step: {}", ruledOut);
            return false;
        }
        int steps = request.steps();
        FusedSupport support = context.call("fused denoiser check", () -> session.fusedSupport(steps));
        if (!support.available()) {
            LOG.info(
                    "The fused {}-step denoiser cannot be used, denoising per step instead: {}",
                    steps,
                    support.reason());
            return false;
        }
        LOG.debug("Using the fused {}-step denoiser ({})", steps, support.reason());
        return true;
    }

    /**
     * @param request the resolved request
     * @param model the model
     * @param previews whether live previews are asked for
     * @return whether the request may run fused (the backend's own check still follows)
     */
    static boolean mayUseFused(ResolvedRequest request, ModelInfo model, boolean previews) {
        return ruledOutBy(request, model, previews) == null;
    }

    private static String ruledOutBy(ResolvedRequest request, ModelInfo model, boolean previews) {
        if (model.fusedSteps() <= 0) {
            return "the backend offers no fused denoiser (the bundle has none, or a backend option turned it off)";
        }
        if (request.steps() != model.fusedSteps()) {
            return "the fused denoiser runs " + model.fusedSteps() + " steps, the request " + request.steps();
        }
        if (request.images().hasInit()) {
            return "img2img starts inside the schedule";
        }
        if (!request.images().references().isEmpty()) {
            return "reference images need per-step conditioning";
        }
        if (request.guidance().classifierFree()) {
            return "classifier-free guidance needs two passes per step";
        }
        if (previews) {
            return PREVIEWS;
        }
        return null;
    }
}
