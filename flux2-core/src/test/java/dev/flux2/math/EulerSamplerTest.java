package dev.flux2.math;

import static dev.flux2.testsupport.ArrayAsserts.assertBitExact;
import static dev.flux2.testsupport.ArrayAsserts.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testsupport.Goldens;
import org.junit.jupiter.api.Test;

class EulerSamplerTest {
    /** README tolerance for img2img_euler.json. */
    private static final double TOL = 1e-6;

    @Test
    void reproducesTheGoldenFourStepRun() {
        JsonNode euler = Goldens.load("img2img_euler.json").get("euler");
        int[] shape = Goldens.ints(euler.get("shape"));
        float[] x = Goldens.floats(euler.get("sample"));
        float[] v = Goldens.floats(euler.get("model_output"));
        float[] sigmas = Goldens.floats(euler.get("sigmas"));
        JsonNode after = euler.get("after_each_step");
        assertEquals(4, after.size());
        assertEquals(after.size() + 1, sigmas.length);
        for (int i = 0; i < after.size(); i++) {
            EulerSampler.step(x, v, sigmas[i], sigmas[i + 1]);
            assertClose(Goldens.floats(after.get(i)), x, TOL, "after step " + i);
        }
        // the golden run used the default schedule for its token count (shape [1, N, 128])
        FlowMatchSchedule schedule = FlowMatchSchedule.forImage(shape[1], sigmas.length - 1);
        assertBitExact(sigmas, schedule.sigmas(), "golden euler sigmas vs schedule");
        assertBitExact(Goldens.floats(euler.get("timesteps")), schedule.timesteps(), "golden euler timesteps");
    }

    @Test
    void usesAFloat32Difference() {
        float[] x = {1f, -2f, 0f};
        float[] v = {0.5f, 0.25f, -1f};
        float sigma = 0.9553907513618469f;
        float next = 0.8771342635154724f;
        float dt = next - sigma;
        EulerSampler.step(x, v, sigma, next);
        assertArrayEquals(new float[] {1f + dt * 0.5f, -2f + dt * 0.25f, -dt}, x);
    }

    @Test
    void finalStepToZeroLandsOnThePrediction() {
        // x_σ = (1−σ)·x0 + σ·noise and v = noise − x0: one step from σ to 0 must give x0
        float x0 = 0.75f;
        float noise = -1.25f;
        float sigma = 0.5f;
        float[] x = {(1 - sigma) * x0 + sigma * noise};
        EulerSampler.step(x, new float[] {noise - x0}, sigma, 0f);
        assertEquals(x0, x[0], 0f);
    }

    @Test
    void rejectsMismatchedLengths() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> EulerSampler.step(new float[3], new float[2], 1f, 0.5f));
        assertEquals(true, e.getMessage().contains("3") && e.getMessage().contains("2"), e.getMessage());
    }
}
