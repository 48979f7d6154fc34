package dev.flux2.onnx.e2e;

import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.spi.LatentGrid;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticReference;
import java.awt.image.BufferedImage;
import java.nio.file.Path;

/**
 * The expected pixels of whole generations, for models whose parts may come from different synthetic bundles: the
 * text context from the text encoder's reference, the velocity from the denoiser's, the latents of images and the
 * decoded pixels from the VAE's, the ids and mask from the tokenizer (docs/pipeline-reference.md §7 to §9). Built on
 * {@link ExpectedImage}; none of the backend or engine code under test is used.
 *
 * @param text the text encoder's math
 * @param denoiser the denoiser's math
 * @param vae the VAE's math (decoder and encoder)
 * @param tokenizer the tokenizer folder
 */
record ExpectedGeneration(
        SyntheticReference text, SyntheticReference denoiser, SyntheticReference vae, Path tokenizer) {

    /** @param bundle a whole bundle @return its parts */
    static ExpectedGeneration of(SyntheticBundle bundle) {
        SyntheticReference ref = bundle.reference();
        return new ExpectedGeneration(ref, ref, ref, bundle.tokenizerDirectory());
    }

    /**
     * @param prompt the prompt
     * @param seed the seed
     * @param width pixels
     * @param height pixels
     * @return planar RGB [3][H][W] of a 4-step text-to-image generation
     */
    float[] textToImage(String prompt, long seed, int width, int height) {
        float[] ctx = ExpectedImage.context(text, tokenizer, prompt);
        float[] x = ExpectedImage.noiseTokens(seed, height / 16, width / 16);
        ExpectedImage.denoise(denoiser, x, ctx, ExpectedImage.Loop.textToImage(width, height, 4));
        return ExpectedImage.decode(vae, x, height / 16, width / 16);
    }

    /**
     * img2img by strength at the init image's size (sides multiples of 16, area below 1024²), 4 steps.
     *
     * @param prompt the prompt
     * @param seed the seed
     * @param init the init image
     * @param strength the strength
     * @return planar RGB [3][H][W]
     */
    float[] imageToImage(String prompt, long seed, BufferedImage init, double strength) {
        int steps = 4;
        int tStart = (int) Math.max(steps - Math.min(steps * strength, steps), 0);
        int gh = init.getHeight() / 16;
        int gw = init.getWidth() / 16;
        float[] x0 = encodedTokens(init);
        float[] noise = LatentLayout.pack(new LatentGrid(TorchRandom.randn(seed, 1, 128, gh, gw), 128, gw, gh));
        float sigma = FlowMatchSchedule.forImage(gh * gw, steps).sigmas()[tStart];
        float[] x = new float[x0.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = sigma * noise[i] + (1f - sigma) * x0[i];
        }
        float[] ctx = ExpectedImage.context(text, tokenizer, prompt);
        ExpectedImage.denoise(
                denoiser, x, ctx, new ExpectedImage.Loop(gh, gw, steps, tStart, new float[0], new float[0]));
        return ExpectedImage.decode(vae, x, gh, gw);
    }

    /**
     * Text-to-image with reference images (sides multiples of 16, areas below 1024²), 4 steps.
     *
     * @param prompt the prompt
     * @param seed the seed
     * @param width output pixels
     * @param height output pixels
     * @param references the reference images, in order
     * @return planar RGB [3][H][W]
     */
    float[] withReferences(String prompt, long seed, int width, int height, BufferedImage... references) {
        float[] tokens = new float[0];
        float[] ids = new float[0];
        for (int i = 0; i < references.length; i++) {
            tokens = PositionIds.concat(tokens, encodedTokens(references[i]));
            ids = PositionIds.concat(
                    ids, PositionIds.reference(i, references[i].getWidth() / 16, references[i].getHeight() / 16));
        }
        int gh = height / 16;
        int gw = width / 16;
        float[] x = ExpectedImage.noiseTokens(seed, gh, gw);
        float[] ctx = ExpectedImage.context(text, tokenizer, prompt);
        ExpectedImage.denoise(denoiser, x, ctx, new ExpectedImage.Loop(gh, gw, 4, 0, tokens, ids));
        return ExpectedImage.decode(vae, x, gh, gw);
    }

    private float[] encodedTokens(BufferedImage image) {
        float[] latent = vae.encodeImage(ExpectedImage.pixels(image), image.getWidth(), image.getHeight());
        return LatentLayout.pack(new LatentGrid(latent, 128, image.getWidth() / 16, image.getHeight() / 16));
    }
}
