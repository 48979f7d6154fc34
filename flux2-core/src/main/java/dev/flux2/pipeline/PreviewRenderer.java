package dev.flux2.pipeline;

import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewListener;
import dev.flux2.api.PreviewMode;
import dev.flux2.api.PreviewOptions;
import dev.flux2.image.ImageConversion;
import dev.flux2.image.LatentRgbProjection;
import dev.flux2.math.LatentLayout;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live previews of one generation (docs/embedding.md, "Live previews"). After a step that previews, the predicted
 * clean latent is {@code x̂₀ = x_t − σ_t·v}, the {@code x0} of diffusers' {@code FlowMatchEulerDiscreteScheduler.step}
 * (scheduling_flow_match_euler_discrete.py line 507 at 58eb52c0: {@code x0 = sample - current_sigma * model_output}),
 * computed from the step's input latent and velocity into a buffer of its own, so the denoised latent is never
 * touched; with an inpainting mask, the kept region is the clean init latent, as after the last step. It is rendered
 * by the linear projection or the full VAE decode and handed to the listener. Not thread-safe: one generating thread.
 */
final class PreviewRenderer {
    private static final Logger LOG = LoggerFactory.getLogger(PreviewRenderer.class);

    private final PreviewOptions options;
    private final PreviewListener listener;
    private final LinearPreviewFit linear;
    private final Flux2Backend backend;
    private final GenerationContext context;
    private final WorkingSize size;
    private final float[] clean;
    private int failures;
    /** Set when rendering failed: the generation goes on without previews. */
    private boolean broken;

    /**
     * @param options which previews
     * @param listener who receives them
     * @param linear the engine's fitted projection (fitted here on first use)
     * @param backend the backend, for the VAE decode
     * @param context the generation's context
     * @param size the working size
     */
    PreviewRenderer(
            PreviewOptions options,
            PreviewListener listener,
            LinearPreviewFit linear,
            Flux2Backend backend,
            GenerationContext context,
            WorkingSize size) {
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.linear = linear;
        this.backend = backend;
        this.context = context;
        this.size = size;
        this.clean = new float[size.latentValues()];
    }

    /**
     * @param completed steps completed once the current step ends
     * @param total steps the image runs
     * @return whether that step previews
     */
    boolean previewsAfter(int completed, int total) {
        return !broken && options.previewsAfter(completed, total);
    }

    /**
     * Computes x̂₀ of the current step into this renderer's buffer. Call before the Euler step overwrites x.
     *
     * @param x the step's input latent, N·128; not modified
     * @param velocity the step's (guided) velocity; not modified
     * @param sigma σ of the step
     * @param inpainting the mask blend's inputs, or null
     */
    void predictClean(float[] x, float[] velocity, float sigma, DenoisingLoop.Inpainting inpainting) {
        for (int k = 0; k < clean.length; k++) {
            clean[k] = x[k] - sigma * velocity[k];
        }
        if (inpainting != null) {
            float[] mask = inpainting.tokenMask();
            float[] x0 = inpainting.x0();
            int channels = LatentGrid.CHANNELS;
            for (int t = 0; t < mask.length; t++) {
                float m = mask[t];
                for (int f = t * channels; f < (t + 1) * channels; f++) {
                    clean[f] = (1f - m) * x0[f] + m * clean[f];
                }
            }
        }
    }

    /**
     * Renders the buffer and hands it to the listener.
     *
     * @param image the image index
     * @param completed steps completed
     * @param total steps the image runs
     */
    void emit(int image, int completed, int total) {
        BufferedImage rendered;
        try {
            rendered = scaled(render(image, completed, total));
        } catch (GenerationCancelledException e) {
            throw e;
        } catch (RuntimeException e) {
            // A preview is a view of the work, not part of it: its failure must not cost the image.
            broken = true;
            LOG.warn(
                    "The {} preview after step {} of image {} failed; continuing without previews",
                    options.mode(),
                    completed,
                    image + 1,
                    e);
            return;
        }
        Preview preview = new Preview(image, completed, total, options.mode(), rendered);
        try {
            listener.onPreview(preview);
        } catch (RuntimeException e) {
            if (failures++ == 0) {
                LOG.warn(
                        "Preview listener {} threw on step {} of image {}; ignoring this and its later exceptions",
                        listener.getClass().getName(),
                        completed,
                        image + 1,
                        e);
            } else {
                LOG.debug(
                        "Preview listener {} threw again: {}",
                        listener.getClass().getName(),
                        e.toString());
            }
        }
    }

    private BufferedImage render(int image, int completed, int total) {
        int gw = size.gridWidth();
        int gh = size.gridHeight();
        if (options.mode() == PreviewMode.LINEAR) {
            LatentRgbProjection projection =
                    context.call("fitting the linear preview to the VAE decoder", () -> linear.projection(context));
            return ImageConversion.toImage(projection.project(clean, gw, gh));
        }
        LatentGrid latent = LatentLayout.unpack(clean, LatentGrid.CHANNELS, gw, gh);
        String where = "preview decode after step " + completed + "/" + total + " of image " + (image + 1);
        PixelTensor pixels = context.call(where, () -> backend.decodeLatent(latent, new QuietStageContext(context)));
        return ImageConversion.toImage(pixels);
    }

    private BufferedImage scaled(BufferedImage image) {
        int max = options.maxSize();
        int longer = Math.max(image.getWidth(), image.getHeight());
        if (max == 0 || max == longer) {
            return image;
        }
        double scale = (double) max / longer;
        int w = Math.max(1, (int) Math.round(image.getWidth() * scale));
        int h = Math.max(1, (int) Math.round(image.getHeight() * scale));
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.drawImage(image, 0, 0, w, h, null);
        } finally {
            g.dispose();
        }
        return out;
    }
}
