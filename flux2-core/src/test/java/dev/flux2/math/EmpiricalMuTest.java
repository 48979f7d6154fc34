package dev.flux2.math;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

class EmpiricalMuTest {
    /** README tolerance for mu. */
    private static final double MU_TOL = 1e-9;

    static Stream<Arguments> muCases() {
        JsonNode cases = Goldens.load("schedule.json").get("mu");
        return StreamSupport.stream(cases.spliterator(), false)
                .map(c -> Arguments.of(
                        c.get("image_seq_len").asInt(),
                        c.get("steps").asInt(),
                        c.get("mu").asDouble()));
    }

    @ParameterizedTest(name = "S={0} n={1}")
    @MethodSource("muCases")
    void reproducesGoldenMu(int imageSeqLen, int steps, double expected) {
        assertEquals(expected, EmpiricalMu.compute(imageSeqLen, steps), MU_TOL);
    }

    @Test
    void goldenHasBothSidesOfTheThreshold() {
        long below = muCases().filter(a -> (int) a.get()[0] <= 4300).count();
        long above = muCases().filter(a -> (int) a.get()[0] > 4300).count();
        assertTrue(below > 0 && above > 0, "golden mu table must cover both branches");
        assertEquals(66, below + above);
    }

    @Test
    void workedExamplesOfSection5And11() {
        assertEquals(2.30848, EmpiricalMu.compute(4300, 4), 5e-6);
        assertEquals(1.18470, EmpiricalMu.compute(4301, 4), 5e-6);
        assertEquals(1.49666, EmpiricalMu.compute(6144, 4), 5e-6);
        assertEquals(1.965567161408539, EmpiricalMu.compute(256, 4), MU_TOL);
        assertEquals(2.0306897079499455, EmpiricalMu.compute(1024, 4), MU_TOL);
        assertEquals(2.291179894115571, EmpiricalMu.compute(4096, 4), MU_TOL);
        assertEquals(2.289823174395958, EmpiricalMu.compute(4080, 4), MU_TOL);
        assertEquals(3.22998634, EmpiricalMu.compute(16384, 4), 5e-9);
        assertEquals(2.3086469856581564, EmpiricalMu.compute(4096, 1), MU_TOL);
        assertEquals(2.0233511571292637, EmpiricalMu.compute(4096, 50), MU_TOL);
    }

    @Test
    void stepsAreIgnoredAboveTheThreshold() {
        assertEquals(EmpiricalMu.compute(4301, 1), EmpiricalMu.compute(4301, 200));
    }

    @Test
    void rejectsNonPositiveArguments() {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> EmpiricalMu.compute(0, 4));
        assertTrue(e.getMessage().contains("imageSeqLen") && e.getMessage().contains("0"), e.getMessage());
        e = assertThrows(InvalidRequestException.class, () -> EmpiricalMu.compute(256, 0));
        assertTrue(e.getMessage().contains("steps"), e.getMessage());
    }
}
