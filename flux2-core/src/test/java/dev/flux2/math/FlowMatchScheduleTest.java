package dev.flux2.math;

import static dev.flux2.testsupport.ArrayAsserts.assertBitExact;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.testsupport.Goldens;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class FlowMatchScheduleTest {
    static Stream<Arguments> schedules() {
        JsonNode cases = Goldens.load("schedule.json").get("schedules");
        return StreamSupport.stream(cases.spliterator(), false)
                .map(c -> Arguments.of(
                        c.get("height").asInt() + "x" + c.get("width").asInt() + " n="
                                + c.get("steps").asInt(),
                        c));
    }

    @Test
    void goldenCoversAllDocumentedSchedules() {
        assertEquals(48, schedules().count());
    }

    /** docs/pipeline-reference.md §6: the float32 recipe reproduces every golden schedule bit for bit. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedules")
    void reproducesGoldenScheduleBitExactly(String name, JsonNode c) {
        int h = c.get("height").asInt();
        int w = c.get("width").asInt();
        int seqLen = c.get("image_seq_len").asInt();
        assertEquals((h / 16) * (w / 16), seqLen, "golden image_seq_len");
        int steps = c.get("steps").asInt();
        FlowMatchSchedule s = FlowMatchSchedule.forImage(seqLen, steps);

        assertEquals(steps, s.steps());
        assertEquals(c.get("mu").asDouble(), s.mu(), 1e-9);
        float[] sigmas = Goldens.floats(c.get("sigmas"));
        assertBitExact(sigmas, s.sigmas(), name + " sigmas");
        for (int i = 0; i <= steps; i++) {
            assertEquals(sigmas[i], s.sigma(i), 0f);
        }
        assertBitExact(Goldens.floats(c.get("timesteps")), s.timesteps(), name + " timesteps");
        float[] tt = Goldens.floats(c.get("transformer_timestep"));
        float[] actual = new float[steps];
        for (int i = 0; i < steps; i++) {
            actual[i] = s.transformerTimestep(i);
        }
        assertBitExact(tt, actual, name + " transformer_timestep");
    }

    /** Custom sigmas equal to the default float32 linspace give the golden schedule too. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedules")
    void customSigmasEqualToLinspaceGiveTheGoldenSchedule(String name, JsonNode c) {
        int steps = c.get("steps").asInt();
        float[] lin = new float[steps];
        for (int i = 0; i < steps; i++) {
            // independent float64 linspace (start + i·(stop − start)/(n − 1), last = stop), then float32
            lin[i] = (float) (steps == 1 ? 1.0 : 1.0 + i * ((1.0 / steps - 1.0) / (steps - 1)));
        }
        lin[steps - 1] = (float) (1.0 / steps);
        FlowMatchSchedule s =
                FlowMatchSchedule.withCustomSigmas(c.get("image_seq_len").asInt(), lin);
        assertBitExact(Goldens.floats(c.get("sigmas")), s.sigmas(), name + " custom sigmas");
    }

    /** docs/pipeline-reference.md §13, worked examples (printed to ≥ 10 significant digits). */
    @Test
    void workedExamples() {
        assertSigmas(
                FlowMatchSchedule.forImage(256, 4), 1.0, 0.9553907513618469, 0.8771342635154724, 0.7041116952896118, 0);
        assertSigmas(
                FlowMatchSchedule.forImage(1024, 4),
                1.0,
                0.9580853581428528,
                0.8839818835258484,
                0.7174965739250183,
                0);
        assertSigmas(
                FlowMatchSchedule.forImage(4096, 4), 1.0, 0.9673840403556824, 0.908143937587738, 0.7671999335289001, 0);
        assertSigmas(FlowMatchSchedule.forImage(85 * 48, 4), 1, 0.9673411846, 0.9080306888, 0.7669575810, 0);
        assertSigmas(FlowMatchSchedule.forImage(128 * 128, 4), 1, 0.9869855642, 0.9619472623, 0.8939153552, 0);
        assertSigmas(FlowMatchSchedule.forImage(4096, 1), 1, 0);
        assertEquals(0.9973090887, FlowMatchSchedule.forImage(4096, 50).sigma(1), 1e-9);

        FlowMatchSchedule s512 = FlowMatchSchedule.forImage(1024, 4);
        double[] tOver1000 = {1.0, 0.9580854177474976, 0.8839818835258484, 0.7174965739250183};
        for (int i = 0; i < 4; i++) {
            assertEquals(tOver1000[i], s512.transformerTimestep(i), 1e-12, "512² t/1000 at " + i);
        }
        // the fp32 DiT input differs from σ by one ulp at 512² step 1
        assertEquals(Math.ulp(s512.sigma(1)), s512.transformerTimestep(1) - s512.sigma(1), 0f);

        double[] dt = {-0.044609249, -0.078256488, -0.173022568, -0.704111695};
        FlowMatchSchedule s256 = FlowMatchSchedule.forImage(256, 4);
        for (int i = 0; i < 4; i++) {
            assertEquals(dt[i], s256.sigma(i + 1) - s256.sigma(i), 1e-9, "256² dt at " + i);
        }
    }

    private static void assertSigmas(FlowMatchSchedule s, double... expected) {
        assertEquals(expected.length - 1, s.steps());
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], s.sigma(i), 1e-9, "sigma " + i + " of " + s);
        }
    }

    @Test
    void returnsDefensiveCopies() {
        FlowMatchSchedule s = FlowMatchSchedule.forImage(256, 4);
        float[] a = s.sigmas();
        a[1] = 42f;
        assertNotSame(a, s.sigmas());
        assertEquals(0.9553907513618469, s.sigmas()[1], 1e-9);
        float[] custom = {1f, 0.5f};
        FlowMatchSchedule c = FlowMatchSchedule.withCustomSigmas(256, custom);
        assertArrayEquals(new float[] {1f, 0.5f}, custom, "input must not be modified");
        assertEquals(2, c.steps());
        assertEquals(EmpiricalMu.compute(256, 2), c.mu());
    }

    @Test
    void sigmaIndexIsChecked() {
        FlowMatchSchedule s = FlowMatchSchedule.forImage(256, 4);
        assertEquals(0f, s.sigma(4));
        assertThrows(IndexOutOfBoundsException.class, () -> s.sigma(5));
        assertThrows(IndexOutOfBoundsException.class, () -> s.sigma(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> s.transformerTimestep(4));
    }

    @Test
    void rejectsInvalidArguments() {
        assertThrows(InvalidRequestException.class, () -> FlowMatchSchedule.forImage(256, 0));
        assertThrows(InvalidRequestException.class, () -> FlowMatchSchedule.forImage(0, 4));
        assertThrows(InvalidRequestException.class, () -> FlowMatchSchedule.withCustomSigmas(256, new float[0]));
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class, () -> FlowMatchSchedule.withCustomSigmas(256, new float[] {1f, 0f}));
        assertTrue(e.getMessage().contains("sigmas[1]"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> FlowMatchSchedule.withCustomSigmas(256, new float[] {1.5f}));
        assertThrows(
                InvalidRequestException.class, () -> FlowMatchSchedule.withCustomSigmas(256, new float[] {Float.NaN}));
    }
}
