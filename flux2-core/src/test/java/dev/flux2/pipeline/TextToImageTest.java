package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.testkit.ReferenceMath;
import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Text-to-image through the engine against the test's own sampler over the fake model. */
class TextToImageTest {
    private static final String PROMPT = "a red fox in the snow";

    static float[] gaussian(int length, long seed) {
        Random random = new Random(seed);
        float[] values = new float[length];
        for (int i = 0; i < length; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return values;
    }

    @Test
    void perStepTextToImageMatchesIndependentSampler() {
        FakeModel model = FakeModel.distilledModel();
        FakeBackend backend = new FakeBackend(model, FakeBackend.FUSED_OFF);
        float[] noise = gaussian(128 * 3 * 4, 11);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).size(64, 48).noise(noise).build());
        }

        float[] sigmas = ReferenceMath.sigmas(12, 4);
        float[] ids = ReferenceMath.imageIds(3, 4);
        float text = FakeModel.textScalar(model.tokenize(PROMPT));
        float[] expected = Simulator.denoise(
                ReferenceMath.pack(noise, 128, 3, 4),
                sigmas,
                0,
                new Simulator.Layout(ids, new float[0]),
                Simulator.Conditioning.plain(text));

        // What reached the backend: layout, steps, and the initial latent.
        FakeBackend.FakeSession session = backend.sessions.get(0);
        assertArrayEquals(ids, session.setup.positionIds());
        assertArrayEquals(ReferenceMath.textIds(32), session.setup.textIds());
        assertEquals(0, session.setup.referenceTokens().length);
        assertEquals(4, backend.velocityCalls.size());
        for (int i = 0; i < 4; i++) {
            FakeBackend.VelocityCall call = backend.velocityCalls.get(i);
            assertEquals(i, call.step().index());
            assertEquals(4, call.step().total());
            assertEquals(sigmas[i], call.step().sigma(), 2e-7f * sigmas[i], "sigma " + i);
            assertEquals(sigmas[i + 1], call.step().sigmaNext(), 2e-7f * sigmas[i + 1], "sigma " + (i + 1));
        }
        assertArrayEquals(
                ReferenceMath.pack(noise, 128, 3, 4),
                backend.velocityCalls.get(0).latent());

        // The final latent handed to the decoder and the image bytes.
        float[] decoded = backend.decodedLatents.get(0).data();
        assertArrayEquals(
                ReferenceMath.unpack(expected, 128, 3, 4),
                decoded,
                "final latent differs from the independent sampler");
        BufferedImage image = result.first().image();
        assertEquals(64, image.getWidth());
        assertEquals(48, image.getHeight());
        assertEquals(BufferedImage.TYPE_INT_RGB, image.getType());
        assertArrayEquals(
                Simulator.image(expected, 3, 4), ReferenceMath.rgb(image), "image differs from the independent decode");

        GenerationMetadata meta = result.first().metadata();
        assertEquals(PROMPT, meta.prompt());
        assertTrue(meta.seed().isEmpty(), "explicit noise has no seed");
        assertEquals(4, meta.steps());
        assertEquals(4, meta.stepsRun());
        assertEquals(64, meta.width());
        assertEquals(48, meta.height());
        assertEquals(1f, meta.guidance());
        assertTrue(meta.strength().isEmpty());
        assertEquals(0, meta.referenceCount());
        assertFalse(meta.fused());
        assertEquals(0, meta.truncatedTokens());
        assertEquals("fake-distilled", meta.modelVariant());
    }

    @Test
    void defaultsComeFromTheModel() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(GenerationRequest.builder(PROMPT).seed(3).build());
        }
        GeneratedImage image = result.first();
        assertEquals(64, image.image().getWidth());
        assertEquals(48, image.image().getHeight());
        assertEquals(4, image.metadata().steps());
        assertEquals(4, backend.velocityCalls.size());
    }

    @Test
    void explicitStepsAndSizeOverrideDefaults() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .seed(3)
                    .steps(2)
                    .size(32, 80)
                    .build());
            assertEquals(32, result.first().image().getWidth());
            assertEquals(80, result.first().image().getHeight());
            assertEquals(2, result.first().metadata().steps());
        }
        float[] sigmas = ReferenceMath.sigmas(2 * 5, 2);
        assertEquals(2, backend.velocityCalls.size());
        assertEquals(sigmas[1], backend.velocityCalls.get(1).step().sigma(), 2e-7f);
        assertEquals(2 * 5 * 128, backend.velocityCalls.get(0).latent().length);
    }

    @Test
    void customSigmasAreShiftedAndUsed() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        float[] custom = {1f, 0.75f, 0.5f};
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(
                    GenerationRequest.builder(PROMPT).seed(5).sigmas(custom).build());
            assertEquals(3, result.first().metadata().steps());
        }
        float[] expected = ReferenceMath.customSigmas(12, custom);
        assertEquals(3, backend.velocityCalls.size());
        for (int i = 0; i < 3; i++) {
            assertEquals(expected[i], backend.velocityCalls.get(i).step().sigma(), 2e-7f, "sigma " + i);
            assertEquals(expected[i + 1], backend.velocityCalls.get(i).step().sigmaNext(), 2e-7f);
        }
    }

    @Test
    void truncatedPromptIsReportedAndLogged() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        String longPrompt = "abcdefghijklmnopqrstuvwxyz0123456789ABCD"; // 40 + 2 template tokens, 32 fit
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            GenerationResult result = engine.generate(
                    GenerationRequest.builder(longPrompt).seed(1).build());
            assertEquals(10, result.first().metadata().truncatedTokens());
            assertTrue(log.text().contains("WARN"), log.text());
            assertTrue(log.text().contains("10 token(s)"), log.text());
        }
    }

    @Test
    void aSizeTooLargeForJavaArraysIsAnInvalidRequestBeforeAnyBackendCall() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        // Limits raised past the Java-array bound, so the array check (the last line of defence) is what refuses.
        GenerationLimits unlimited = GenerationLimits.builder()
                .maxSide(1 << 20)
                .maxPixels(Long.MAX_VALUE)
                .build();
        try (GenerationEngine engine = new GenerationEngine(backend, unlimited)) {
            // 3·W·H = 3·2^32 RGB values: no Java array (nor the latent, 2^31 values) can hold them.
            GenerationRequest request =
                    GenerationRequest.builder(PROMPT).size(65536, 65536).seed(1).build();
            InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> engine.generate(request));
            assertTrue(
                    e.getMessage().contains("65536x65536")
                            && (e.getMessage().contains("too large")
                                    || e.getMessage().contains("heap")),
                    e.getMessage());
            // the smallest square side over the limit: 3·26768² = 2,149,577,472 > 2^31 − 1
            e = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder(PROMPT)
                            .size(26768, 26768)
                            .seed(1)
                            .build()));
            assertTrue(e.getMessage().contains("26768x26768"), e.getMessage());
        }
        assertEquals(List.of("close"), backend.calls, "rejected before any backend call");
    }
}
