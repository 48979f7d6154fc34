package dev.flux2.cli.testing;

import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticReference;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.awt.image.BufferedImage;
import java.nio.file.Path;

/**
 * The image a generation must produce on a model whose parts may come from different synthetic bundles (a composed
 * model): the text context from the text encoder's reference, the velocity from the denoiser's, image latents and
 * pixels from the VAE's, the ids and mask from the tokenizer; text-to-image, img2img by strength and reference images,
 * 4 steps, as docs/pipeline-reference.md §4 to §12 describe. Images given must have sides that are multiples of 16
 * and areas below 1024², so preprocessing leaves them as they are.
 *
 * @param text the text encoder's math
 * @param denoiser the denoiser's math
 * @param vae the VAE's math
 * @param tokenizer the tokenizer folder
 */
public record ExpectedGeneration(
        SyntheticReference text, SyntheticReference denoiser, SyntheticReference vae, Path tokenizer) {
    private static final int STEPS = 4;

    /** @param bundle a whole bundle @return its parts */
    public static ExpectedGeneration of(SyntheticBundle bundle) {
        SyntheticReference ref = bundle.reference();
        return new ExpectedGeneration(ref, ref, ref, bundle.tokenizerDirectory());
    }

    /**
     * @param prompt the prompt
     * @param seed the seed
     * @param width pixels
     * @param height pixels
     * @return packed RGB, row-major
     */
    public int[] textToImage(String prompt, long seed, int width, int height) {
        return run(prompt, seed, width, height, 0, noise(seed, width, height), new float[0], new float[0]);
    }

    /**
     * @param prompt the prompt
     * @param seed the seed
     * @param init the init image (its size is the output size)
     * @param strength the strength
     * @return packed RGB, row-major
     */
    public int[] imageToImage(String prompt, long seed, BufferedImage init, double strength) {
        return imageToImage(prompt, seed, init, strength, new BufferedImage[0]);
    }

    /**
     * img2img by strength with reference images appended to every step.
     *
     * @param prompt the prompt
     * @param seed the seed
     * @param init the init image (its size is the output size)
     * @param strength the strength
     * @param references the reference images, in order
     * @return packed RGB, row-major
     */
    public int[] imageToImage(
            String prompt, long seed, BufferedImage init, double strength, BufferedImage... references) {
        float[] tokens = new float[0];
        float[] ids = new float[0];
        for (int i = 0; i < references.length; i++) {
            tokens = PositionIds.concat(tokens, encoded(references[i]));
            ids = PositionIds.concat(
                    ids, PositionIds.reference(i, references[i].getWidth() / 16, references[i].getHeight() / 16));
        }
        int tStart = (int) Math.max(STEPS - Math.min(STEPS * strength, STEPS), 0);
        int w = init.getWidth();
        int h = init.getHeight();
        float[] x0 = encoded(init);
        float[] noise = noise(seed, w, h);
        float sigma = FlowMatchSchedule.forImage((w / 16) * (h / 16), STEPS).sigma(tStart);
        float[] x = new float[x0.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = sigma * noise[i] + (1f - sigma) * x0[i];
        }
        return run(prompt, seed, w, h, tStart, x, tokens, ids);
    }

    /**
     * @param prompt the prompt
     * @param seed the seed
     * @param width output pixels
     * @param height output pixels
     * @param references the reference images, in order
     * @return packed RGB, row-major
     */
    public int[] withReferences(String prompt, long seed, int width, int height, BufferedImage... references) {
        float[] tokens = new float[0];
        float[] ids = new float[0];
        for (int i = 0; i < references.length; i++) {
            tokens = PositionIds.concat(tokens, encoded(references[i]));
            ids = PositionIds.concat(
                    ids, PositionIds.reference(i, references[i].getWidth() / 16, references[i].getHeight() / 16));
        }
        return run(prompt, seed, width, height, 0, noise(seed, width, height), tokens, ids);
    }

    private static float[] noise(long seed, int width, int height) {
        int gh = height / 16;
        int gw = width / 16;
        return LatentLayout.pack(new LatentGrid(TorchRandom.randn(seed, 1, 128, gh, gw), 128, gw, gh));
    }

    private int[] run(
            String prompt,
            long seed,
            int width,
            int height,
            int start,
            float[] x,
            float[] referenceTokens,
            float[] referenceIds) {
        TokenizedPrompt tokens;
        try (Qwen3PromptTokenizer t =
                Qwen3PromptTokenizer.load(tokenizer, text.spec().textSequenceLength())) {
            tokens = t.tokenize(prompt);
        }
        float[] context = text.conditionedContext(tokens.inputIds(), tokens.attentionMask());
        int gh = height / 16;
        int gw = width / 16;
        float[] ids = PositionIds.concat(PositionIds.image(gw, gh), referenceIds);
        FlowMatchSchedule schedule = FlowMatchSchedule.forImage(gh * gw, STEPS);
        float[] all = new float[x.length + referenceTokens.length];
        System.arraycopy(referenceTokens, 0, all, x.length, referenceTokens.length);
        for (int i = start; i < STEPS; i++) {
            System.arraycopy(x, 0, all, 0, x.length);
            float[] v = denoiser.velocity(all, ids, schedule.transformerTimestep(i), context);
            float dt = schedule.sigma(i + 1) - schedule.sigma(i);
            for (int k = 0; k < x.length; k++) {
                x[k] = x[k] + dt * v[k];
            }
        }
        float[] latent = LatentLayout.unpack(x, 128, gw, gh).data();
        return ExpectedImage.packed(vae.decodeLatent(latent, gw, gh), width, height);
    }

    private float[] encoded(BufferedImage image) {
        int w = image.getWidth();
        int h = image.getHeight();
        float[] pixels = new float[3 * w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int rgb = image.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    pixels[(c * h + y) * w + x] = 2f * (((rgb >> (16 - 8 * c)) & 0xFF) / 255f) - 1f;
                }
            }
        }
        float[] latent = vae.encodeImage(pixels, w, h);
        return LatentLayout.pack(new LatentGrid(latent, 128, w / 16, h / 16));
    }
}
