package dev.flux2.pipeline;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.Seeds;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.Img2ImgNoising;
import dev.flux2.spi.LatentGrid;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills a request's unset values from the model and checks what only the model can check. Size precedence, per
 * side: the request's explicit value; else the prepared init image; else the first prepared reference; else the
 * model default.
 */
final class RequestResolver {
    /**
     * img2img strength when the request does not set one (diffusers' inpaint/img2img default), unless the schedule
     * is so short that it would start at σ = 1 ({@link #defaultStrength}).
     */
    static final double DEFAULT_STRENGTH = 0.8;
    /**
     * The longest array every JVM allocates. The decoded image (3·W·H floats) is the largest per-image array; the
     * latent (W·H/2 values) and everything else are smaller, so a size within this never overflows an int length.
     */
    private static final long MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    private static final Logger LOG = LoggerFactory.getLogger(RequestResolver.class);

    private RequestResolver() {}

    /**
     * @param request the validated request
     * @param model the model's defaults
     * @param images the request's images, already prepared
     * @return the resolved request
     * @throws InvalidRequestException when explicit noise does not fit the working size, or the working size is
     *     too large for Java arrays
     */
    static ResolvedRequest resolve(GenerationRequest request, ModelInfo model, PreparedImages images) {
        WorkingSize size = resolveSize(request, model, images);
        int steps = request.steps().orElse(model.defaultSteps());
        FlowMatchSchedule schedule = request.customSigmas()
                .map(sigmas -> FlowMatchSchedule.withCustomSigmas(size.tokens(), sigmas))
                .orElseGet(() -> FlowMatchSchedule.forImage(size.tokens(), steps));
        OptionalDouble strength = images.hasInit()
                ? OptionalDouble.of(request.strength()
                        .orElseGet(() -> images.hasMask() ? DEFAULT_STRENGTH : defaultStrength(schedule)))
                : OptionalDouble.empty();
        int startIndex = images.hasInit() ? Img2ImgNoising.startIndex(schedule.steps(), strength.getAsDouble()) : 0;
        List<String> warnings = new ArrayList<>();
        // With a mask the init image still shapes the result at sigma = 1: it is blended back after every step.
        if (images.hasInit() && !images.hasMask() && startsAtPureNoise(schedule, startIndex)) {
            String warning = String.format(
                    Locale.ROOT,
                    "the init image cannot influence the result: strength %s with %d steps starts at t_start = %d,"
                            + " where sigma = 1 (pure noise)%s",
                    strength.getAsDouble(),
                    schedule.steps(),
                    startIndex,
                    schedule.steps() > 1
                            ? "; use a strength of at most " + usefulStrength(schedule.steps())
                            : "; with 1 step no strength keeps the init image, use 2 or more steps");
            LOG.warn("{}", warning);
            warnings.add(warning);
        }
        return new ResolvedRequest(
                request.prompt(),
                request.negativePrompt(),
                size,
                schedule,
                startIndex,
                resolveGuidance(request, model, warnings),
                resolveNoise(request, size),
                strength,
                request.numImages(),
                images,
                warnings);
    }

    /**
     * diffusers' default 0.8, unless that starts the schedule at σ = 1, where the init image is pure noise after
     * {@code scale_noise} and has no influence (4 steps: t_start = int(4 − 3.2) = 0). Then the largest strength
     * that leaves t_start = 1: (n − 1)/n, so n − 1 steps run (4 steps: 0.75). One step has no such strength.
     */
    static double defaultStrength(FlowMatchSchedule schedule) {
        int n = schedule.steps();
        if (n < 2 || !startsAtPureNoise(schedule, Img2ImgNoising.startIndex(n, DEFAULT_STRENGTH))) {
            return DEFAULT_STRENGTH;
        }
        return usefulStrength(n);
    }

    /** @return the largest strength with t_start ≥ 1 under diffusers' rule, for n ≥ 2 steps */
    private static double usefulStrength(int n) {
        double s = (n - 1) / (double) n;
        while (Img2ImgNoising.startIndex(n, s) < 1) {
            s = Math.nextDown(s);
        }
        return s;
    }

    /** σ[t_start] = 1: {@code scale_noise} gives pure noise, whatever the init image. */
    private static boolean startsAtPureNoise(FlowMatchSchedule schedule, int startIndex) {
        return schedule.sigma(startIndex) >= 1f;
    }

    private static WorkingSize resolveSize(GenerationRequest request, ModelInfo model, PreparedImages images) {
        int sourceWidth = model.defaultWidth();
        int sourceHeight = model.defaultHeight();
        BufferedImage source = images.hasInit()
                ? images.init()
                : images.references().isEmpty() ? null : images.references().get(0);
        if (source != null) {
            sourceWidth = source.getWidth();
            sourceHeight = source.getHeight();
        }
        WorkingSize size = new WorkingSize(
                request.width().orElse(sourceWidth), request.height().orElse(sourceHeight));
        long rgbValues = 3L * size.width() * size.height();
        if (rgbValues > MAX_ARRAY_LENGTH) {
            throw new InvalidRequestException("size " + size + " is too large: its RGB image holds 3·W·H = "
                    + rgbValues + " values, more than a Java array can hold (" + MAX_ARRAY_LENGTH
                    + "); choose a smaller width or height");
        }
        return size;
    }

    private static GuidancePlan resolveGuidance(GenerationRequest request, ModelInfo model, List<String> warnings) {
        if (model.distilled()) {
            OptionalDouble requested = request.guidance();
            if (requested.isPresent() && requested.getAsDouble() != model.defaultGuidance()) {
                // In the metadata too, so that a caller (the CLI) can report it once, in its own words.
                String warning = String.format(
                        Locale.ROOT,
                        "Guidance %s is ignored: model %s is step-distilled and runs one transformer pass per step"
                                + " without classifier-free guidance",
                        requested.getAsDouble(),
                        model.variant());
                LOG.warn("{}", warning);
                warnings.add(warning);
            }
            return new GuidancePlan(1.0, false);
        }
        double scale = request.guidance().orElse(model.defaultGuidance());
        return new GuidancePlan(scale, scale > 1.0);
    }

    private static LatentNoise resolveNoise(GenerationRequest request, WorkingSize size) {
        Optional<float[]> explicit = request.noise();
        if (explicit.isPresent()) {
            float[] noise = explicit.get();
            if (noise.length != size.latentValues()) {
                throw new InvalidRequestException("explicit noise has " + noise.length + " values, but the working"
                        + " size " + size + " needs " + LatentGrid.CHANNELS + "·(W/16)·(H/16) = " + LatentGrid.CHANNELS
                        + "·" + size.gridWidth() + "·" + size.gridHeight() + " = " + size.latentValues());
            }
            return LatentNoise.explicit(noise);
        }
        if (request.seed().isPresent()) {
            return LatentNoise.seeded(request.seed().getAsLong());
        }
        long seed = Seeds.random();
        LOG.debug("No seed given: drew random seed {}", seed);
        return LatentNoise.seeded(seed);
    }
}
