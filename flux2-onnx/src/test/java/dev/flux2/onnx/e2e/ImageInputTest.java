package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.spi.LatentGrid;
import dev.flux2.testkit.FusedConvention;
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
 * img2img and multi-reference editing through the public API, compared with an independent computation. The test
 * images already have sides that are multiples of 16 and areas below 1024², so preprocessing leaves them as they
 * are and the expected pixels are simply 2·(v/255) − 1.
 */
class ImageInputTest {
    private static final String PROMPT = "make it blue";

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        // The fused graph is present on purpose: image inputs must never use it.
        bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), root.resolve("bundle"));
    }

    private static float[] encodedTokens(SyntheticReference ref, BufferedImage image) {
        float[] latent = ref.encodeImage(ExpectedImage.pixels(image), image.getWidth(), image.getHeight());
        return LatentLayout.pack(new LatentGrid(latent, 128, image.getWidth() / 16, image.getHeight() / 16));
    }

    @Test
    void imageToImageByStrength() {
        BufferedImage init = ExpectedImage.testImage(64, 48, 0);
        GenerationResult r;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(9)
                    .initImage(init)
                    .strength(0.6)
                    .build());
        }
        // docs/pipeline-reference.md §9: init = min(n·s, n) = 2.4, t_start = (int) max(n − init, 0) = 1: three steps.
        int steps = 4;
        int tStart = (int) Math.max(steps - Math.min(steps * 0.6, steps), 0);
        assertEquals(1, tStart);
        assertEquals(3, r.first().metadata().stepsRun());
        assertFalse(r.first().metadata().fused());

        SyntheticReference ref = bundle.reference();
        int gh = 3;
        int gw = 4;
        float[] x0 = encodedTokens(ref, init);
        float[] noise = LatentLayout.pack(new LatentGrid(TorchRandom.randn(9L, 1, 128, gh, gw), 128, gw, gh));
        float sigma = FlowMatchSchedule.forImage(gh * gw, steps).sigmas()[tStart];
        float[] x = new float[x0.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = sigma * noise[i] + (1f - sigma) * x0[i];
        }
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        ExpectedImage.denoise(ref, x, ctx, new ExpectedImage.Loop(gh, gw, steps, tStart, new float[0], new float[0]));
        ImageComparison.assertMatches(r.first().image(), ExpectedImage.decode(ref, x, gh, gw), "img2img 0.6");
    }

    @Test
    void twoReferenceImages() {
        BufferedImage first = ExpectedImage.testImage(64, 64, 3);
        BufferedImage second = ExpectedImage.testImage(80, 64, 17);
        GenerationResult r;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(4)
                    .size(48, 32)
                    .addReferenceImage(first)
                    .addReferenceImage(second)
                    .build());
        }
        assertEquals(2, r.first().metadata().referenceCount());
        assertFalse(r.first().metadata().fused(), "reference tokens rule the fused graph out");

        SyntheticReference ref = bundle.reference();
        float[] t1 = encodedTokens(ref, first);
        float[] t2 = encodedTokens(ref, second);
        float[] references = new float[t1.length + t2.length];
        System.arraycopy(t1, 0, references, 0, t1.length);
        System.arraycopy(t2, 0, references, t1.length, t2.length);
        // Ids (10(i+1), r, c, 0) per reference (golden-tested core math).
        float[] ids = PositionIds.concat(PositionIds.reference(0, 4, 4), PositionIds.reference(1, 5, 4));
        assertEquals(10f, ids[0]);
        assertEquals(20f, ids[16 * 4]);
        float[] x = ExpectedImage.noiseTokens(4, 2, 3);
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        ExpectedImage.denoise(ref, x, ctx, new ExpectedImage.Loop(2, 3, 4, 0, references, ids));
        ImageComparison.assertMatches(r.first().image(), ExpectedImage.decode(ref, x, 2, 3), "two references");
    }

    @Test
    void bundleWithoutVaeEncoderRejectsImagesClearly(@TempDir Path dir) {
        SyntheticBundle noEncoder = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().vaeEncoder(false).build(), dir);
        try (Flux2Pipeline p =
                Flux2Pipeline.builder().model(noEncoder.directory()).build()) {
            assertFalse(p.modelInfo().supportsImageInput());
            Flux2Exception e = assertThrows(
                    Flux2Exception.class,
                    () -> p.generate(GenerationRequest.builder(PROMPT)
                            .seed(1)
                            .initImage(ExpectedImage.testImage(64, 64, 0))
                            .build()));
            assertTrue(
                    e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("encoder")
                            || e.getMessage().contains("image"),
                    e.getMessage());
            // Text-to-image still works without the encoder.
            GenerationResult r = p.generate(
                    GenerationRequest.builder(PROMPT).seed(1).size(32, 32).build());
            assertEquals(32, r.first().image().getWidth());
        }
    }
}
