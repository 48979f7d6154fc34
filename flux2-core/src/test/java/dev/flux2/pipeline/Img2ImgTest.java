package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.testkit.ReferenceMath;
import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** img2img by strength: t_start, steps run, the scale_noise start latent and the rest of the loop. */
class Img2ImgTest {
    private static final String PROMPT = "make it winter";

    @ParameterizedTest
    @CsvSource({"0.3, 2", "0.6, 1", "0.9, 0", "0.1, 3", "1.0, 0"})
    void runsStepsFromStartIndexOnScaledNoise(double strength, int expectedStart) {
        assertEquals(
                expectedStart,
                ReferenceMath.startIndex(4, strength),
                "reference table (docs/pipeline-reference.md §9)");
        FakeModel model = FakeModel.distilledModel();
        FakeBackend backend = new FakeBackend(model);
        BufferedImage init = ReferenceMath.testImage(64, 48, 1);
        float[] noise = TextToImageTest.gaussian(128 * 12, 5);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(init)
                    .strength(strength)
                    .noise(noise)
                    .build());
        }
        GenerationMetadata meta = result.first().metadata();
        assertEquals(4, meta.steps());
        assertEquals(4 - expectedStart, meta.stepsRun());
        assertEquals(strength, meta.strength().orElseThrow());
        assertFalse(meta.fused(), "img2img never runs fused");
        assertEquals(64, meta.width());
        assertEquals(48, meta.height());

        // The init image reached the VAE encoder unchanged (it already has a valid size).
        assertEquals(1, backend.encodedPixels.size());
        assertArrayEquals(
                ReferenceMath.pixels(init), backend.encodedPixels.get(0).data(), 1e-6f);

        // Steps t_start..n-1 ran, starting from sigma·noise + (1 − sigma)·x0 at sigma = sigmas[t_start].
        float[] sigmas = ReferenceMath.sigmas(12, 4);
        assertEquals(4 - expectedStart, backend.velocityCalls.size());
        for (int i = 0; i < backend.velocityCalls.size(); i++) {
            assertEquals(expectedStart + i, backend.velocityCalls.get(i).step().index());
            assertEquals(
                    sigmas[expectedStart + i],
                    backend.velocityCalls.get(i).step().sigma(),
                    2e-7f);
        }
        float[] x0 = backend.encodedLatents.get(0).data();
        float sigma = sigmas[expectedStart];
        float[] start = new float[x0.length];
        for (int i = 0; i < x0.length; i++) {
            start[i] = sigma * noise[i] + (1f - sigma) * x0[i];
        }
        float[] startTokens = ReferenceMath.pack(start, 128, 3, 4);
        assertArrayEquals(
                startTokens,
                backend.velocityCalls.get(0).latent(),
                "start latent is not scale_noise(x0, noise, sigma[t_start])");

        float text = FakeModel.textScalar(model.tokenize(PROMPT));
        float[] expected = Simulator.denoise(
                startTokens,
                sigmas,
                expectedStart,
                new Simulator.Layout(ReferenceMath.imageIds(3, 4), new float[0]),
                Simulator.Conditioning.plain(text));
        assertArrayEquals(
                ReferenceMath.unpack(expected, 128, 3, 4),
                backend.decodedLatents.get(0).data());
        assertArrayEquals(
                Simulator.image(expected, 3, 4),
                ReferenceMath.rgb(result.first().image()));
    }

    @Test
    void defaultStrengthLeavesTheInitImageAnInfluenceOnFewStepSchedules() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 2))
                    .seed(9)
                    .build());
            // diffusers' 0.8 would give 4·0.8 = 3.2 → t_start = int(0.8) = 0: all four steps from pure noise
            // (sigma_0 = 1), the init image ignored. The default becomes (n − 1)/n = 0.75: t_start = 1.
            assertEquals(0.75, result.first().metadata().strength().orElseThrow());
            assertEquals(3, result.first().metadata().stepsRun());
            assertEquals(List.of(), result.first().metadata().warnings());
        }
        assertEquals(1, backend.velocityCalls.get(0).step().index());
    }

    @Test
    void explicitSizeResizesTheInitImage() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 3))
                    .size(32, 32)
                    .strength(0.5)
                    .seed(1)
                    .build());
            assertEquals(32, result.first().image().getWidth());
            assertEquals(32, result.first().image().getHeight());
        }
        assertEquals(32, backend.encodedPixels.get(0).width());
        assertEquals(32, backend.encodedPixels.get(0).height());
        assertEquals(4 * 128, backend.velocityCalls.get(0).latent().length);
    }

    @Test
    void oneExplicitSideTakesTheOtherFromTheInitImage() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 3))
                    .width(32)
                    .seed(1)
                    .build());
            assertEquals(32, result.first().image().getWidth());
            assertEquals(48, result.first().image().getHeight());
        }
        assertEquals(32, backend.encodedPixels.get(0).width());
        assertEquals(48, backend.encodedPixels.get(0).height());
    }

    @Test
    void noiseLengthIsCheckedAgainstTheInitImageSize() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest request = GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 3))
                    .noise(new float[128 * 4])
                    .build();
            InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> engine.generate(request));
            assertTrue(e.getMessage().contains("512") && e.getMessage().contains("1536"), e.getMessage());
        }
        assertTrue(
                backend.calls.isEmpty() || backend.calls.equals(java.util.List.of("close")),
                "nothing may run before validation: " + backend.calls);
    }
}
