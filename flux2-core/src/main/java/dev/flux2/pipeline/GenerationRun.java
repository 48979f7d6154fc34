package dev.flux2.pipeline;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InferenceException;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.PreviewListener;
import dev.flux2.api.PreviewOptions;
import dev.flux2.api.Stage;
import dev.flux2.image.ImageConversion;
import dev.flux2.image.MaskOverlay;
import dev.flux2.math.Img2ImgNoising;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.GenerationPlan;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.Preparation;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one request: prepare and resolve, encode the text once, encode the images once, denoise every image
 * with one denoiser session, then decode every image. Denoising all images before decoding any lets a backend
 * with sequential residency load the transformer and the VAE decoder once per request. Every backend handle is
 * closed on every path.
 */
final class GenerationRun {
    private static final Logger LOG = LoggerFactory.getLogger(GenerationRun.class);

    private final Flux2Backend backend;
    private final ModelInfo model;
    private final GenerationRequest request;
    private final GenerationContext context;
    private final GenerationLimits limits;
    private final Previews previews;

    /** The live previews a generation asked for, with the engine's fitted projection; null fields: none. */
    record Previews(PreviewOptions options, PreviewListener listener, LinearPreviewFit linear) {
        boolean asked() {
            return options != null;
        }
    }

    /**
     * @param backend the backend (not owned)
     * @param model the model's info
     * @param request the validated request
     * @param context the request's context, already wired to cancellation
     * @param limits the limits the resolved request must keep
     * @param previews the live previews asked for
     */
    GenerationRun(
            Flux2Backend backend,
            ModelInfo model,
            GenerationRequest request,
            GenerationContext context,
            GenerationLimits limits,
            Previews previews) {
        this.backend = backend;
        this.previews = previews;
        this.limits = limits;
        this.model = model;
        this.request = request;
        this.context = context;
    }

    /** @return the generated images with their metadata and the request's timings */
    GenerationResult run() {
        long start = System.nanoTime();
        context.throwIfCancelled("the start of the generation");
        long prepareStart = System.nanoTime();
        PreparedImages images = ImageInputs.prepare(request, model, backend.vaeEncoderSource());
        if (!images.isEmpty()) {
            // Resizing runs before text encoding because the working size depends on it; its time still belongs
            // to turning the images into latents.
            context.timings().addStage(0, Stage.VAE_ENCODE, System.nanoTime() - prepareStart);
        }
        ResolvedRequest resolved = RequestResolver.resolve(request, model, images);
        limits.checkResolved(resolved.size().width(), resolved.size().height(), resolved.steps(), resolved.numImages());
        LOG.debug(
                "Generating {} image(s) of {}: {} steps from step {}, guidance {}",
                resolved.numImages(),
                resolved.size(),
                resolved.steps(),
                resolved.startIndex(),
                resolved.guidance());
        Denoised denoised;
        List<BufferedImage> decoded;
        GenerationPlan plan = new GenerationPlan(
                resolved.size().gridWidth(),
                resolved.size().gridHeight(),
                !resolved.images().references().isEmpty() || resolved.images().hasMask(),
                FusedPolicy.mayUseFused(resolved, model, previews.asked()));
        try (Preparation prepared = context.call("preparing the generation", () -> backend.prepare(plan, context))) {
            try (TextConditioning text = TextConditioning.encode(resolved, backend, context)) {
                EncodedImages encoded = ImageInputs.encode(images, resolved.size(), backend, context);
                denoised = denoiseAll(resolved, text, encoded);
            }
            decoded = decodeAll(resolved, denoised.latents());
        }
        long wall = System.nanoTime() - start;
        List<GeneratedImage> results = new ArrayList<>(decoded.size());
        for (int k = 0; k < decoded.size(); k++) {
            results.add(new GeneratedImage(decoded.get(k), metadata(resolved, denoised, k)));
        }
        LOG.debug(
                "Generated {} image(s) of {} in {} ms: {} steps ({} run per image{}), seed {}",
                resolved.numImages(),
                resolved.size(),
                wall / 1_000_000,
                resolved.steps(),
                resolved.stepsRun(),
                denoised.fused() ? ", fused" : "",
                seedLabel(resolved));
        return new GenerationResult(results, context.timings().forRequest(wall));
    }

    /** The final latents of all images, and how they were produced. */
    private record Denoised(float[][] latents, boolean fused, int truncatedTokens) {}

    private Denoised denoiseAll(ResolvedRequest resolved, TextConditioning text, EncodedImages encoded) {
        WorkingSize size = resolved.size();
        DenoiserSetup setup = new DenoiserSetup(
                size.gridWidth(),
                size.gridHeight(),
                PositionIds.concat(PositionIds.image(size.gridWidth(), size.gridHeight()), encoded.referenceIds()),
                encoded.referenceTokens(),
                PositionIds.text(text.sequenceLength()));
        float[][] latents = new float[resolved.numImages()][];
        // Image 0's DENOISE stage includes opening the session, which may load the transformer.
        GenerationContext.StageSpan firstSpan = context.begin(Stage.DENOISE, 0, resolved.stepsRun());
        try (DenoiserSession session =
                context.call("opening the denoiser", () -> backend.openDenoiser(setup, context))) {
            boolean fused = FusedPolicy.useFused(resolved, model, previews.asked(), session, context);
            PreviewRenderer renderer = previews.asked()
                    ? new PreviewRenderer(
                            previews.options(), previews.listener(), previews.linear(), backend, context, size)
                    : null;
            DenoisingLoop loop = new DenoisingLoop(session, text, resolved, context, renderer);
            for (int k = 0; k < latents.length; k++) {
                GenerationContext.StageSpan span =
                        k == 0 ? firstSpan : context.begin(Stage.DENOISE, k, resolved.stepsRun());
                float[] noise = resolved.noise().grid(k, size);
                float[] x = initialLatent(resolved, encoded, noise);
                if (fused) {
                    loop.runFused(x, k);
                } else {
                    loop.runSteps(x, k, span, inpainting(resolved, encoded, noise));
                }
                latents[k] = x;
                span.finish();
            }
            return new Denoised(latents, fused, text.truncatedTokens());
        }
    }

    /** Pure noise for text-to-image; {@code σ·noise + (1 − σ)·x0} at σ = σ[t_start] for img2img; then packed. */
    private static float[] initialLatent(ResolvedRequest resolved, EncodedImages encoded, float[] noise) {
        WorkingSize size = resolved.size();
        float[] start = noise;
        if (encoded.init() != null) {
            float sigma = resolved.schedule().sigma(resolved.startIndex());
            start = Img2ImgNoising.scaleNoise(encoded.init().data(), start, sigma);
        }
        return LatentLayout.pack(new LatentGrid(start, LatentGrid.CHANNELS, size.gridWidth(), size.gridHeight()));
    }

    /** The packed clean init latent, noise and token mask for the per-step blending; null without a mask. */
    private static DenoisingLoop.Inpainting inpainting(ResolvedRequest resolved, EncodedImages encoded, float[] noise) {
        if (!resolved.images().hasMask()) {
            return null;
        }
        WorkingSize size = resolved.size();
        return new DenoisingLoop.Inpainting(
                LatentLayout.pack(encoded.init()),
                LatentLayout.pack(new LatentGrid(noise, LatentGrid.CHANNELS, size.gridWidth(), size.gridHeight())),
                resolved.images().tokenMask());
    }

    private List<BufferedImage> decodeAll(ResolvedRequest resolved, float[][] latents) {
        WorkingSize size = resolved.size();
        List<BufferedImage> images = new ArrayList<>(latents.length);
        for (int k = 0; k < latents.length; k++) {
            GenerationContext.StageSpan span = context.begin(Stage.VAE_DECODE, k, 1);
            LatentGrid latent =
                    LatentLayout.unpack(latents[k], LatentGrid.CHANNELS, size.gridWidth(), size.gridHeight());
            String where = "VAE decoding of image " + (k + 1);
            PixelTensor pixels = context.call(where, () -> backend.decodeLatent(latent, context));
            if (pixels.width() != size.width() || pixels.height() != size.height()) {
                throw new InferenceException(where + ": expected " + size + " pixels, the backend returned "
                        + pixels.width() + "x" + pixels.height());
            }
            FiniteCheck.require(pixels.data(), pixels.data().length, "the decoded image of " + where);
            BufferedImage image = ImageConversion.toImage(pixels);
            MaskCropOverlay overlay = resolved.images().cropOverlay();
            if (overlay != null) {
                // padding_mask_crop: the output is the init image with the generated crop pasted through the mask
                image = MaskOverlay.apply(overlay.mask(), overlay.original(), image, overlay.region());
            }
            images.add(image);
            span.finish();
        }
        return images;
    }

    /** The working width, or with {@code padding_mask_crop} the init image's, which the overlay returns. */
    private static int outputWidth(ResolvedRequest resolved) {
        MaskCropOverlay overlay = resolved.images().cropOverlay();
        return overlay != null ? overlay.original().getWidth() : resolved.size().width();
    }

    private static int outputHeight(ResolvedRequest resolved) {
        MaskCropOverlay overlay = resolved.images().cropOverlay();
        return overlay != null
                ? overlay.original().getHeight()
                : resolved.size().height();
    }

    private GenerationMetadata metadata(ResolvedRequest resolved, Denoised denoised, int image) {
        return new GenerationMetadata(
                resolved.prompt(),
                resolved.noise().seedOf(image),
                resolved.steps(),
                resolved.stepsRun(),
                outputWidth(resolved),
                outputHeight(resolved),
                resolved.guidance().scale(),
                resolved.strength(),
                resolved.images().references().size(),
                denoised.fused(),
                denoised.truncatedTokens(),
                model.variant(),
                context.timings().forImage(image),
                warnings(resolved, denoised.truncatedTokens()));
    }

    /** The request's warnings and a cut prompt's, which the text stage also logs. */
    private static List<String> warnings(ResolvedRequest resolved, int truncatedTokens) {
        if (truncatedTokens <= 0) {
            return resolved.warnings();
        }
        List<String> all = new ArrayList<>(resolved.warnings());
        all.add("the prompt is too long: " + truncatedTokens + " token(s) beyond the text encoder's sequence length"
                + " were cut off");
        return all;
    }

    private static String seedLabel(ResolvedRequest resolved) {
        return resolved.noise().seedOf(0).isPresent()
                ? Long.toString(resolved.noise().seedOf(0).getAsLong())
                : "none (explicit noise)";
    }
}
