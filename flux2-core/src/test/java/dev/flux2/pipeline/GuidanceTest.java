package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.testkit.ReferenceMath;
import org.junit.jupiter.api.Test;

/** Classifier-free guidance on base models; distilled models ignore guidance. */
class GuidanceTest {
    private static final String PROMPT = "a lighthouse at dusk";

    @Test
    void baseModelRunsTrueCfgWithTheEmptyNegativePrompt() {
        FakeModel model = FakeModel.baseModel();
        FakeBackend backend = new FakeBackend(model);
        float[] noise = TextToImageTest.gaussian(128 * 12, 3);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).guidance(4f).noise(noise).build());
        }
        assertEquals(4f, result.first().metadata().guidance());
        assertEquals(3, result.first().metadata().steps());
        assertEquals(2, backend.texts.size(), "prompt and negative prompt encoded once each");
        FakeBackend.FakeText positive = backend.texts.stream()
                .filter(t -> t.tokens().realTokens() == PROMPT.length() + 2)
                .findFirst()
                .orElseThrow();
        FakeBackend.FakeText negative = backend.texts.stream()
                .filter(t -> t.tokens().realTokens() == 2)
                .findFirst()
                .orElseThrow();
        assertEquals(6, backend.velocityCalls.size(), "two transformer passes per step");
        for (int i = 0; i < 3; i++) {
            var a = backend.velocityCalls.get(2 * i);
            var b = backend.velocityCalls.get(2 * i + 1);
            assertEquals(i, a.step().index());
            assertEquals(i, b.step().index());
            assertTrue(
                    (a.text() == positive && b.text() == negative) || (a.text() == negative && b.text() == positive),
                    "each step conditions once on each prompt");
        }

        float[] expected = Simulator.denoise(
                ReferenceMath.pack(noise, 128, 3, 4),
                ReferenceMath.sigmas(12, 3),
                0,
                new Simulator.Layout(ReferenceMath.imageIds(3, 4), new float[0]),
                new Simulator.Conditioning(positive.scalar, negative.scalar, 4f));
        assertArrayEquals(
                ReferenceMath.unpack(expected, 128, 3, 4),
                backend.decodedLatents.get(0).data(),
                "v = v_neg + 4·(v_pos − v_neg) not applied");
        assertArrayEquals(
                Simulator.image(expected, 3, 4),
                ReferenceMath.rgb(result.first().image()));
        // A sanity check that CFG made a difference at all.
        float[] unguided = Simulator.denoise(
                ReferenceMath.pack(noise, 128, 3, 4),
                ReferenceMath.sigmas(12, 3),
                0,
                new Simulator.Layout(ReferenceMath.imageIds(3, 4), new float[0]),
                Simulator.Conditioning.plain(positive.scalar));
        assertTrue(Simulator.maxDifference(expected, unguided) > 1e-2f);
    }

    @Test
    void customNegativePromptIsEncoded() {
        FakeBackend backend = new FakeBackend(FakeModel.baseModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            engine.generate(GenerationRequest.builder(PROMPT)
                    .negativePrompt("blurry")
                    .seed(1)
                    .build());
        }
        assertTrue(backend.calls.contains("tokenize:blurry"), backend.calls.toString());
        assertEquals(2, backend.texts.size());
    }

    @Test
    void baseModelWithGuidanceOneRunsOnePassPerStep() {
        FakeBackend backend = new FakeBackend(FakeModel.baseModel());
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).guidance(1f).seed(1).build());
        }
        assertEquals(1f, result.first().metadata().guidance());
        assertEquals(1, backend.texts.size());
        assertEquals(3, backend.velocityCalls.size());
    }

    @Test
    void distilledModelIgnoresGuidanceAndSaysSo() {
        FakeModel model = FakeModel.distilledModel();
        FakeBackend guided = new FakeBackend(model, FakeBackend.FUSED_OFF);
        FakeBackend plain = new FakeBackend(model, FakeBackend.FUSED_OFF);
        float[] noise = TextToImageTest.gaussian(128 * 12, 8);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(guided);
                LogCapture log = new LogCapture()) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).guidance(4f).noise(noise).build());
            assertTrue(log.text().contains("Guidance 4.0 is ignored"), log.text());
        }
        try (GenerationEngine engine = new GenerationEngine(plain)) {
            engine.generate(GenerationRequest.builder(PROMPT).noise(noise).build());
        }
        assertEquals(1f, result.first().metadata().guidance(), "guidance in effect is 1 for distilled models");
        assertEquals(1, guided.texts.size(), "no negative prompt");
        assertEquals(4, guided.velocityCalls.size(), "one pass per step");
        assertFalse(guided.calls.contains("tokenize:"), "the empty negative prompt is not tokenized");
        assertArrayEquals(
                plain.decodedLatents.get(0).data(), guided.decodedLatents.get(0).data());
        assertSame(guided.texts.get(0), guided.velocityCalls.get(0).text());
    }
}
