package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.testkit.ReferenceMath;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The fused denoiser runs only when every condition holds; otherwise per step, never silently. */
class FusedDenoiserTest {
    private static final String PROMPT = "a paper boat";

    private record Run(FakeBackend backend, GenerationResult result, String log) {}

    private static Run run(FakeModel model, UnaryOperator<GenerationRequest.Builder> customise) {
        return run(new FakeBackend(model), customise);
    }

    /** A run on a backend opened with the backend option {@code fused=off}. */
    private static Run runFusedOff(FakeModel model, UnaryOperator<GenerationRequest.Builder> customise) {
        return run(new FakeBackend(model, FakeBackend.FUSED_OFF), customise);
    }

    private static Run run(FakeBackend backend, UnaryOperator<GenerationRequest.Builder> customise) {
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            GenerationResult result = engine.generate(
                    customise.apply(GenerationRequest.builder(PROMPT).seed(77)).build());
            return new Run(backend, result, log.text());
        }
    }

    @Test
    void eligibleRequestRunsFusedWithTheFullSchedule() {
        Run fused = run(FakeModel.distilledModel(), b -> b);
        assertTrue(fused.result().first().metadata().fused());
        assertEquals(1, fused.backend().fusedCalls.size());
        assertEquals(0, fused.backend().velocityCalls.size());
        assertArrayEquals(
                ReferenceMath.sigmas(12, 4), fused.backend().fusedCalls.get(0).sigmas(), 2e-7f);
        assertArrayEquals(
                ReferenceMath.pack(dev.flux2.math.TorchRandom.randn(77L, 1, 128, 3, 4), 128, 3, 4),
                fused.backend().fusedCalls.get(0).latent());

        // The fake's fused graph is the same Euler loop, so both paths give the same image.
        Run perStep = runFusedOff(FakeModel.distilledModel(), b -> b);
        assertFalse(perStep.result().first().metadata().fused());
        assertEquals(4, perStep.backend().velocityCalls.size());
        assertEquals(0, perStep.backend().fusedCalls.size());
        assertArrayEquals(
                ReferenceMath.rgb(perStep.result().first().image()),
                ReferenceMath.rgb(fused.result().first().image()));
    }

    @Test
    void fusedOffIsNotReportedAsAProblem() {
        Run run = runFusedOff(FakeModel.distilledModel(), b -> b);
        assertFalse(run.log().contains("fused"), run.log());
    }

    @Test
    void otherStepCountsRunPerStep() {
        Run run = run(FakeModel.distilledModel(), b -> b.steps(3));
        assertFalse(run.result().first().metadata().fused());
        assertEquals(3, run.backend().velocityCalls.size());
    }

    @Test
    void initImagesRunPerStep() {
        Run run = run(
                FakeModel.distilledModel(),
                b -> b.initImage(ReferenceMath.testImage(64, 48, 1)).strength(1.0));
        assertFalse(run.result().first().metadata().fused());
        assertEquals(4, run.backend().velocityCalls.size());
    }

    @Test
    void referencesRunPerStep() {
        Run run = run(FakeModel.distilledModel(), b -> b.addReferenceImage(ReferenceMath.testImage(64, 64, 1)));
        assertFalse(run.result().first().metadata().fused());
        assertEquals(4, run.backend().velocityCalls.size());
    }

    @Test
    void classifierFreeGuidanceRunsPerStep() {
        Run run = run(FakeModel.baseModel().withFusedSteps(3).withFusedAvailable(true), b -> b);
        assertFalse(run.result().first().metadata().fused());
        assertEquals(0, run.backend().fusedCalls.size());
        assertEquals(6, run.backend().velocityCalls.size());
    }

    @Test
    void unavailableFusedGraphIsLoggedWithItsReason() {
        Run run = run(FakeModel.distilledModel().withFusedAvailable(false), b -> b);
        assertFalse(run.result().first().metadata().fused());
        assertEquals(4, run.backend().velocityCalls.size());
        assertTrue(run.log().contains("INFO") && run.log().contains(FakeBackend.FUSED_UNAVAILABLE_REASON), run.log());
    }
}
