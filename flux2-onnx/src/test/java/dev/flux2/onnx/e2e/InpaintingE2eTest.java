package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.spi.LatentGrid;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mask inpainting through the public API on a synthetic bundle with a VAE encoder, against diffusers' klein inpaint
 * loop written out here on the bundle's independent math (docs/pipeline-reference.md §15).
 */
class InpaintingE2eTest {
    private static final String PROMPT = "a window";

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("bundle"));
    }

    @Test
    void repaintsTheWhiteTokensAndKeepsTheInitLatentElsewhere() {
        int gw = 4;
        int gh = 3;
        BufferedImage init = ExpectedImage.testImage(64, 48, 2);
        // white where x >= 32 and y < 16 (the top-right 2x1 tokens), as a colour image: luma decides
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 32; x < 64; x++) {
                mask.setRGB(x, y, 0xFFFFFF);
            }
        }
        GenerationResult r;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(5)
                    .initImage(init)
                    .mask(mask)
                    .strength(0.75)
                    .build());
        }
        int steps = 4;
        int tStart = 1; // int(max(4 − 3, 0))
        assertEquals(3, r.first().metadata().stepsRun());
        assertFalse(r.first().metadata().fused());

        SyntheticReference ref = bundle.reference();
        float[] latent = ref.encodeImage(ExpectedImage.pixels(init), 64, 48);
        float[] x0 = LatentLayout.pack(new LatentGrid(latent, 128, gw, gh));
        float[] noise = ExpectedImage.noiseTokens(5, gh, gw);
        FlowMatchSchedule schedule = FlowMatchSchedule.forImage(gh * gw, steps);
        float[] sigmas = schedule.sigmas();
        boolean[] repaint = new boolean[gh * gw];
        repaint[2] = true;
        repaint[3] = true;
        float[] x = new float[x0.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = sigmas[tStart] * noise[i] + (1f - sigmas[tStart]) * x0[i];
        }
        // [x | x0] with ids [(0, i, j, 0) | (10, i, j, 0)]: the init image conditions as the first reference
        float[] ids = PositionIds.concat(PositionIds.image(gw, gh), PositionIds.reference(0, gw, gh));
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] tokens = new float[2 * x.length];
        System.arraycopy(x0, 0, tokens, x.length, x.length);
        for (int i = tStart; i < steps; i++) {
            System.arraycopy(x, 0, tokens, 0, x.length);
            float[] v = ref.velocity(tokens, ids, schedule.transformerTimestep(i), ctx);
            float dt = sigmas[i + 1] - sigmas[i];
            boolean last = i == steps - 1;
            for (int k = 0; k < x.length; k++) {
                float stepped = x[k] + dt * v[k];
                float kept = last ? x0[k] : sigmas[i + 1] * noise[k] + (1f - sigmas[i + 1]) * x0[k];
                x[k] = repaint[k / 128] ? stepped : kept;
            }
        }
        ImageComparison.assertMatches(r.first().image(), ExpectedImage.decode(ref, x, gh, gw), "inpainting");
    }
}
