package dev.flux2.onnx.e2e;

import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.SyntheticReference;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.nio.file.Path;

/**
 * An independent re-implementation of the generation loop for synthetic bundles: the graphs' math comes from
 * {@link SyntheticReference} (flux2-testkit, pure Java), the schedule, noise, packing and ids from the golden-tested
 * core math, the ids and mask from the tokenizer. None of the backend or engine code under test is used.
 */
final class ExpectedImage {
    private ExpectedImage() {}

    /**
     * @param ref the synthetic graphs' math
     * @param tokenizerDir the bundle's tokenizer folder
     * @param prompt the prompt
     * @return the text context the transformer is fed for the prompt: the encoder graph's output, with padding rows
     *     zeroed and values clipped when the bundle's config asks for it
     */
    static float[] context(SyntheticReference ref, Path tokenizerDir, String prompt) {
        try (Qwen3PromptTokenizer tokenizer =
                Qwen3PromptTokenizer.load(tokenizerDir, ref.spec().textSequenceLength())) {
            TokenizedPrompt t = tokenizer.tokenize(prompt);
            return ref.conditionedContext(t.inputIds(), t.attentionMask());
        }
    }

    /**
     * @param seed the seed
     * @param gridHeight H/16
     * @param gridWidth W/16
     * @return the packed initial noise [N][128] of torch.randn(1, 128, H/16, W/16)
     */
    static float[] noiseTokens(long seed, int gridHeight, int gridWidth) {
        float[] noise = TorchRandom.randn(seed, 1, 128, gridHeight, gridWidth);
        return LatentLayout.pack(new LatentGrid(noise, 128, gridWidth, gridHeight));
    }

    /**
     * Per-step Euler from {@code loop.startIndex()}: x ← x + (σ_{i+1} − σ_i)·v in fp32, with v the first N of the
     * predicted tokens for [x | references] at diffusers' transformer timestep.
     *
     * @param ref the synthetic graphs' math
     * @param x [N][128] start tokens, updated in place
     * @param context the text context
     * @param loop sizes, steps and reference tokens
     */
    static void denoise(SyntheticReference ref, float[] x, float[] context, Loop loop) {
        int n = loop.gridHeight() * loop.gridWidth();
        float[] ids = PositionIds.concat(PositionIds.image(loop.gridWidth(), loop.gridHeight()), loop.referenceIds());
        FlowMatchSchedule schedule = FlowMatchSchedule.forImage(n, loop.steps());
        float[] sigmas = schedule.sigmas();
        float[] tokens = new float[x.length + loop.references().length];
        System.arraycopy(loop.references(), 0, tokens, x.length, loop.references().length);
        for (int i = loop.startIndex(); i < loop.steps(); i++) {
            System.arraycopy(x, 0, tokens, 0, x.length);
            // The transformer is fed what diffusers passes it: t/1000 (σ or one float32 ulp from it).
            float[] v = ref.velocity(tokens, ids, schedule.transformerTimestep(i), context);
            float dt = sigmas[i + 1] - sigmas[i];
            for (int k = 0; k < x.length; k++) {
                x[k] = x[k] + dt * v[k];
            }
        }
    }

    /**
     * What one generation feeds the loop.
     *
     * @param gridHeight H/16
     * @param gridWidth W/16
     * @param steps schedule steps n
     * @param startIndex first step run (img2img t_start)
     * @param references [M][128] packed reference tokens
     * @param referenceIds [M][4] their ids
     */
    record Loop(int gridHeight, int gridWidth, int steps, int startIndex, float[] references, float[] referenceIds) {
        static Loop textToImage(int width, int height, int steps) {
            return new Loop(height / 16, width / 16, steps, 0, new float[0], new float[0]);
        }
    }

    /**
     * @param ref the synthetic graphs' math
     * @param tokens [N][128] final tokens
     * @param gridHeight H/16
     * @param gridWidth W/16
     * @return the decoded planar RGB [3][H][W]
     */
    static float[] decode(SyntheticReference ref, float[] tokens, int gridHeight, int gridWidth) {
        LatentGrid latent = LatentLayout.unpack(tokens, 128, gridWidth, gridHeight);
        return ref.decodeLatent(latent.data(), gridWidth, gridHeight);
    }

    /**
     * @param v a pixel value in [−1, 1]
     * @return its 8-bit value: round-half-even of clamp(v/2 + 1/2)·255 (docs/pipeline-reference.md §12)
     */
    static int toByte(float v) {
        float u = Math.max(0f, Math.min(1f, v * 0.5f + 0.5f));
        return (int) Math.rint(u * 255f);
    }

    /**
     * @param image an 8-bit RGB image
     * @return its planar RGB [3][H][W] in [−1, 1]: 2·(v/255) − 1 per channel (docs/pipeline-reference.md §10)
     */
    static float[] pixels(java.awt.image.BufferedImage image) {
        int w = image.getWidth();
        int h = image.getHeight();
        float[] out = new float[3 * w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int rgb = image.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    out[(c * h + y) * w + x] = 2f * (((rgb >> (16 - 8 * c)) & 0xFF) / 255f) - 1f;
                }
            }
        }
        return out;
    }

    /**
     * @param width pixels, a multiple of 16
     * @param height pixels, a multiple of 16
     * @param phase varies the pattern
     * @return a smooth, colourful test image
     */
    static java.awt.image.BufferedImage testImage(int width, int height, int phase) {
        java.awt.image.BufferedImage img =
                new java.awt.image.BufferedImage(width, height, java.awt.image.BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = (int) (127.5 + 127.5 * Math.sin((x + phase) * 0.21));
                int g = (int) (127.5 + 127.5 * Math.cos((y - phase) * 0.17));
                int b = (x * 7 + y * 3 + phase * 13) & 0xFF;
                img.setRGB(x, y, (r << 16) | (g << 8) | b);
            }
        }
        return img;
    }
}
