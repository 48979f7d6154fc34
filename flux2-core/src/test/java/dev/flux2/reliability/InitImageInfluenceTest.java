package dev.flux2.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.pipeline.FakeBackend;
import dev.flux2.pipeline.FakeModel;
import dev.flux2.pipeline.GenerationEngine;
import dev.flux2.testkit.ReferenceMath;
import java.awt.image.BufferedImage;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Failure class "an init image that does nothing": with few steps the default strength leaves the init image an
 * influence (different init images give different results), and a strength at which it has none (the schedule
 * starts at σ = 1) is reported in the result's metadata warnings.
 */
class InitImageInfluenceTest {
    @Test
    void withTheDefaultStrengthDifferentInitImagesGiveDifferentResults() {
        int[][] results = new int[2][];
        for (int salt = 0; salt < 2; salt++) {
            try (GenerationEngine engine = new GenerationEngine(new FakeBackend(FakeModel.distilledModel()))) {
                GenerationMetadata m;
                BufferedImage out;
                var result = engine.generate(GenerationRequest.builder("x")
                        .initImage(ReferenceMath.testImage(64, 48, salt + 3))
                        .seed(5)
                        .build());
                m = result.first().metadata();
                out = result.first().image();
                assertTrue(m.warnings().isEmpty(), m.warnings().toString());
                assertTrue(m.stepsRun() < m.steps(), "the schedule starts below sigma = 1");
                results[salt] = out.getRGB(0, 0, out.getWidth(), out.getHeight(), null, 0, out.getWidth());
            }
        }
        assertFalse(Arrays.equals(results[0], results[1]), "the init image influences the result");
    }

    @Test
    void aStrengthThatIgnoresTheInitImageIsReported() {
        try (GenerationEngine engine = new GenerationEngine(new FakeBackend(FakeModel.distilledModel()))) {
            GenerationMetadata m = engine.generate(GenerationRequest.builder("x")
                            .initImage(ReferenceMath.testImage(64, 48, 3))
                            .strength(0.9)
                            .seed(5)
                            .build())
                    .first()
                    .metadata();
            assertEquals(1, m.warnings().size(), m.warnings().toString());
            assertTrue(
                    m.warnings().get(0).contains("cannot influence")
                            && m.warnings().get(0).contains("0.75"),
                    m.warnings().get(0));
        }
    }
}
