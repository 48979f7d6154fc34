package dev.flux2.math;

import static dev.flux2.testsupport.ArrayAsserts.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.testsupport.Goldens;
import java.util.Arrays;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class Img2ImgNoisingTest {
    /** README tolerance for img2img_euler.json. */
    private static final double TOL = 1e-6;

    static Stream<Arguments> strengthCases() {
        JsonNode cases = Goldens.load("img2img_euler.json").get("strength");
        return StreamSupport.stream(cases.spliterator(), false)
                .map(c -> Arguments.of(
                        "n=" + c.get("steps").asInt() + " strength="
                                + c.get("strength").asDouble(),
                        c));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strengthCases")
    void reproducesGoldenStartIndexAndTimesteps(String name, JsonNode c) {
        int steps = c.get("steps").asInt();
        double strength = c.get("strength").asDouble();
        int goldenStart = c.get("t_start").asInt();
        int run = c.get("num_steps_run").asInt();
        float[] goldenTimesteps = Goldens.floats(c.get("timesteps"));
        assertEquals(steps - goldenStart, run, "golden consistency");
        if (run < 1) {
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> Img2ImgNoising.startIndex(steps, strength));
            assertTrue(e.getMessage().contains("strength") && e.getMessage().contains("steps"), e.getMessage());
            return;
        }
        int tStart = Img2ImgNoising.startIndex(steps, strength);
        assertEquals(goldenStart, tStart, name);
        float[] all = FlowMatchSchedule.forImage(c.get("image_seq_len").asInt(), steps)
                .timesteps();
        assertClose(goldenTimesteps, Arrays.copyOfRange(all, tStart, steps), TOL, name + " timesteps");
    }

    @Test
    void goldenIncludesTheStrengthZeroErrorCase() {
        assertTrue(strengthCases()
                .anyMatch(a -> ((JsonNode) a.get()[1]).get("num_steps_run").asInt() == 0));
    }

    @Test
    void tableOfSection8() {
        double[] strengths = {1.0, 0.9, 0.75, 0.6, 0.5, 0.3, 0.25, 0.1};
        int[] starts = {0, 0, 1, 1, 2, 2, 3, 3};
        for (int i = 0; i < strengths.length; i++) {
            assertEquals(starts[i], Img2ImgNoising.startIndex(4, strengths[i]), "strength " + strengths[i]);
        }
        // the unmerged I2I-PR would give 1 here (int(n·strength)); the INPAINT convention gives 0
        assertEquals(0, Img2ImgNoising.startIndex(4, 0.9));
    }

    @Test
    void rejectsOutOfRangeStrengthAndSteps() {
        for (double bad : new double[] {-0.01, 1.01, Double.NaN}) {
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> Img2ImgNoising.startIndex(4, bad));
            assertTrue(e.getMessage().contains("strength"), e.getMessage());
        }
        assertThrows(InvalidRequestException.class, () -> Img2ImgNoising.startIndex(0, 0.5));
        // truncation: any positive strength leaves at least one step (n − init > n − 1 truncates to n − 1)
        assertEquals(3, Img2ImgNoising.startIndex(4, 1e-9));
        assertEquals(27, Img2ImgNoising.startIndex(28, 0.001));
    }

    @Test
    void reproducesGoldenScaleNoise() {
        JsonNode g = Goldens.load("img2img_euler.json").get("scale_noise");
        float sigma = (float) g.get("sigma").asDouble();
        float[] sample = Goldens.floats(g.get("sample"));
        float[] noise = Goldens.floats(g.get("noise"));
        float[] sampleCopy = sample.clone();
        float[] noised = Img2ImgNoising.scaleNoise(sample, noise, sigma);
        assertClose(Goldens.floats(g.get("noised")), noised, TOL, "scale_noise");
        assertArrayEquals(sampleCopy, sample, "x0 must not be modified");
        // its sigma is σ_1 of the default 4-step schedule for the golden's token count
        int tokens = Goldens.ints(g.get("shape"))[1];
        assertEquals(sigma, FlowMatchSchedule.forImage(tokens, 4).sigma(1), 0f);
        assertEquals(
                g.get("timestep").get(0).asDouble(),
                FlowMatchSchedule.forImage(tokens, 4).timesteps()[1],
                0);
    }

    @Test
    void scaleNoiseEndpoints() {
        float[] x0 = {0.25f, -3f};
        float[] noise = {1.5f, 0.125f};
        assertArrayEquals(noise, Img2ImgNoising.scaleNoise(x0, noise, 1f));
        assertArrayEquals(x0, Img2ImgNoising.scaleNoise(x0, noise, 0f));
        assertThrows(IllegalArgumentException.class, () -> Img2ImgNoising.scaleNoise(x0, new float[3], 0.5f));
    }
}
