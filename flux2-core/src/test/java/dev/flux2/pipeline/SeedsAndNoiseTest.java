package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.math.TorchRandom;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Seeds, seed + k for several images, random seeds, explicit noise. */
class SeedsAndNoiseTest {
    private static final String PROMPT = "three cats";

    private static float[] seededTokens(long seed) {
        return ReferenceMath.pack(TorchRandom.randn(seed, 1, 128, 3, 4), 128, 3, 4);
    }

    @Test
    void imageKUsesSeedPlusK() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        long seed = 1234;
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).seed(seed).numImages(3).build());
        }
        assertEquals(3, result.images().size());
        assertEquals(1, backend.texts.size(), "text encoded once per request");
        assertEquals(1, backend.sessions.size(), "one denoiser session per request");
        assertEquals(12, backend.velocityCalls.size());
        for (int k = 0; k < 3; k++) {
            assertEquals(
                    OptionalLong.of(seed + k), result.images().get(k).metadata().seed());
            FakeBackend.VelocityCall first = backend.velocityCalls.get(4 * k);
            assertEquals(0, first.step().index());
            assertArrayEquals(seededTokens(seed + k), first.latent(), "noise of image " + k);
        }
        assertFalse(
                java.util.Arrays.equals(
                        ReferenceMath.rgb(result.images().get(0).image()),
                        ReferenceMath.rgb(result.images().get(1).image())),
                "different seeds, different images");
    }

    @Test
    void randomSeedIsReportedAndReproducible() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        GenerationResult first;
        GenerationResult second;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            first = engine.generate(GenerationRequest.builder(PROMPT).build());
            second = engine.generate(GenerationRequest.builder(PROMPT).build());
        }
        long seed = first.first().metadata().seed().orElseThrow();
        assertArrayEquals(seededTokens(seed), backend.velocityCalls.get(0).latent());
        assertTrue(second.first().metadata().seed().isPresent());
        assertTrue(seed != second.first().metadata().seed().getAsLong(), "two random draws of 32 bits collided");
        // Drawn seeds are in [0, 2^32): JSON readers holding numbers as doubles (JavaScript, jq) keep them exact.
        for (GenerationResult r : java.util.List.of(first, second)) {
            long s = r.first().metadata().seed().getAsLong();
            assertTrue(s >= 0 && s < (1L << 32), "drawn seed " + s + " is outside [0, 2^32)");
        }

        FakeBackend replay = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        try (GenerationEngine engine = new GenerationEngine(replay)) {
            GenerationResult again =
                    engine.generate(GenerationRequest.builder(PROMPT).seed(seed).build());
            assertArrayEquals(
                    ReferenceMath.rgb(first.first().image()),
                    ReferenceMath.rgb(again.first().image()));
        }
    }

    @Test
    void explicitNoiseIsUsedVerbatim() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        float[] noise = TextToImageTest.gaussian(128 * 12, 99);
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(
                    GenerationRequest.builder(PROMPT).noise(noise).build());
            assertTrue(result.first().metadata().seed().isEmpty());
        }
        assertArrayEquals(
                ReferenceMath.pack(noise, 128, 3, 4),
                backend.velocityCalls.get(0).latent());
    }

    @Test
    void explicitNoiseOfTheWrongLengthNamesBothNumbers() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest request = GenerationRequest.builder(PROMPT)
                    .size(64, 64)
                    .noise(new float[128 * 12])
                    .build();
            InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> engine.generate(request));
            assertTrue(e.getMessage().contains("1536"), e.getMessage());
            assertTrue(e.getMessage().contains("2048"), e.getMessage());
        }
        assertEquals(List.of("close"), backend.calls, "rejected before any backend call");
    }
}
