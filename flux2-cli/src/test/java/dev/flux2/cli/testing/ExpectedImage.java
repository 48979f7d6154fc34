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

/**
 * The image a text-to-image generation on a synthetic bundle must produce, computed without the pipeline: the
 * tokenizer, the golden-tested core math (torch-compatible noise, schedule, packing, position ids) and the testkit's
 * independent evaluation of the synthetic graphs, chained the way docs/pipeline-reference.md §4 to §7 and §12 describe
 * (per-step Euler in fp32, diffusers' t/1000 fed to the transformer, round-half-even to bytes).
 */
public final class ExpectedImage {
    private ExpectedImage() {}

    /**
     * What to compute.
     *
     * @param prompt the prompt
     * @param seed the noise seed
     * @param width pixels, multiple of 16
     * @param height pixels, multiple of 16
     * @param steps denoising steps
     */
    public record Request(String prompt, long seed, int width, int height, int steps) {}

    /**
     * @param bundle the synthetic bundle
     * @param request what to generate
     * @return packed RGB, row-major, {@code 0xRRGGBB} per pixel
     */
    public static int[] rgb(SyntheticBundle bundle, Request request) {
        SyntheticReference ref = bundle.reference();
        TokenizedPrompt tokens;
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(
                bundle.tokenizerDirectory(), bundle.spec().textSequenceLength())) {
            tokens = tokenizer.tokenize(request.prompt());
        }
        float[] context = ref.textContext(tokens.inputIds(), tokens.attentionMask());
        int gh = request.height() / 16;
        int gw = request.width() / 16;
        int n = gh * gw;
        // docs/pipeline-reference.md §4: randn(1, 128, H/16, W/16) in the patchified space, then pack.
        float[] noise = TorchRandom.randn(request.seed(), 1, 128, gh, gw);
        float[] x = LatentLayout.pack(new LatentGrid(noise, 128, gw, gh));
        float[] ids = PositionIds.image(gw, gh);
        FlowMatchSchedule schedule = FlowMatchSchedule.forImage(n, request.steps());
        for (int i = 0; i < request.steps(); i++) {
            float sigma = schedule.sigma(i);
            // The transformer receives what diffusers passes it: t/1000 (σ or one float32 ulp from it).
            float[] v = ref.velocity(x, ids, schedule.transformerTimestep(i), context);
            // docs/pipeline-reference.md §7: x ← x + (σ_{i+1} − σ_i)·v, dt as a float32 difference, x kept in float32.
            float dt = schedule.sigma(i + 1) - sigma;
            for (int k = 0; k < x.length; k++) {
                x[k] = x[k] + dt * v[k];
            }
        }
        float[] latent = LatentLayout.unpack(x, 128, gw, gh).data();
        float[] chw = ref.decodeLatent(latent, gw, gh);
        int plane = request.width() * request.height();
        int[] rgb = new int[plane];
        for (int p = 0; p < plane; p++) {
            rgb[p] = toByte(chw[p]) << 16 | toByte(chw[plane + p]) << 8 | toByte(chw[2 * plane + p]);
        }
        return rgb;
    }

    /**
     * @param chw planar RGB [3][H][W] in [−1, 1]
     * @param width W
     * @param height H
     * @return packed RGB, row-major, {@code 0xRRGGBB} per pixel
     */
    static int[] packed(float[] chw, int width, int height) {
        int plane = width * height;
        int[] rgb = new int[plane];
        for (int p = 0; p < plane; p++) {
            rgb[p] = toByte(chw[p]) << 16 | toByte(chw[plane + p]) << 8 | toByte(chw[2 * plane + p]);
        }
        return rgb;
    }

    /** docs/pipeline-reference.md §12: u = clamp(x·0.5 + 0.5, 0, 1), byte = round-half-even(u·255). */
    private static int toByte(float v) {
        float u = Math.min(1f, Math.max(0f, v * 0.5f + 0.5f));
        return (int) Math.rint(u * 255f);
    }
}
