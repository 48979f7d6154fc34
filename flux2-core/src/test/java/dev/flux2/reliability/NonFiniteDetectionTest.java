package dev.flux2.reliability;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InferenceException;
import dev.flux2.pipeline.FakeBackend;
import dev.flux2.pipeline.FakeModel;
import dev.flux2.pipeline.GenerationEngine;
import org.junit.jupiter.api.Test;

/**
 * Failure class "wrong output that looks like success": NaN or infinity in a stage's output stops the generation with
 * an {@link InferenceException} naming the stage and step, instead of a black PNG. (The ONNX text encoder's context
 * and a real NaN-poisoned bundle are covered in flux2-examples' {@code PoisonedWeightsIT}.)
 */
class NonFiniteDetectionTest {
    @Test
    void aNanInTheTransformersPredictionNamesTheStep() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        backend.poisonPredictAtStep = 2;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            InferenceException e = assertThrows(
                    InferenceException.class,
                    () -> engine.generate(GenerationRequest.builder("x").seed(1).build()));
            assertTrue(e.getMessage().contains("prediction") && e.getMessage().contains("step 3/4"), e.getMessage());
            assertTrue(e.getMessage().contains("1 NaN"), e.getMessage());
        }
        assertTrue(!backend.calls.contains("decode"), "stopped before decoding: " + backend.calls);
    }

    @Test
    void anInfinityInTheDecodedImageNamesTheStage() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        backend.poisonDecode = true;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            InferenceException e = assertThrows(
                    InferenceException.class,
                    () -> engine.generate(GenerationRequest.builder("x").seed(1).build()));
            assertTrue(
                    e.getMessage().contains("decoded image") && e.getMessage().contains("1 infinite"), e.getMessage());
        }
    }
}
