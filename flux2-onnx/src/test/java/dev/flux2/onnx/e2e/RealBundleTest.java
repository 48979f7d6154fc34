package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelSummary;
import dev.flux2.onnx.session.OpenSessionCounter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Opt-in checks with a real bundle (docs/bundle-format.md §15), skipped unless {@code -Dflux2.model=DIR} is set. Run
 * with {@code mvn -pl flux2-onnx -am verify -Dgroups=model -Dflux2.model=DIR -Dflux2.test.argLine=-Xmx12g
 * -Dsurefire.failIfNoSpecifiedTests=false}. Images are written to {@code target/real-bundle/} for a look.
 */
@Tag("model")
class RealBundleTest {
    private static Path model;

    @BeforeAll
    static void locate() {
        String dir = System.getProperty("flux2.model");
        Assumptions.assumeTrue(dir != null && !dir.isBlank(), "set -Dflux2.model=DIR to run the real-bundle tests");
        model = Path.of(dir);
    }

    private static void save(BufferedImage image, String name) throws IOException {
        Path out = Files.createDirectories(Path.of("target", "real-bundle"));
        ImageIO.write(image, "png", out.resolve(name).toFile());
    }

    @Test
    void buildIsCheapAndInspectDumpsEveryGraph() {
        long start = System.nanoTime();
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(model).build()) {
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("build() took " + ms + " ms; model " + p.modelInfo());
            assertTrue(ms < 60_000, "build() must not load the weights");
        }
        ModelSummary summary = Flux2Models.inspect(model);
        for (ModelSummary.GraphEntry g : summary.graphs()) {
            System.out.println(g.key() + " (" + g.file() + ")");
            g.inputs().forEach(t -> System.out.println("  in  " + t));
            g.outputs().forEach(t -> System.out.println("  out " + t));
        }
        System.out.println("details " + summary.details());
        assertTrue(
                summary.files().stream().allMatch(ModelSummary.FileEntry::ok),
                summary.files().toString());
    }

    @Test
    void generatesAndTheFusedGraphAgreesWithPerStep() throws IOException {
        int baseline = OpenSessionCounter.current();
        GenerationRequest request = GenerationRequest.builder("a red fox in the snow")
                .seed(42)
                .size(256, 256)
                .build();
        GenerationResult perStep;
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(model)
                .backendOption("fused", "off")
                .build()) {
            perStep = p.generate(request);
            save(perStep.first().image(), "fox-per-step.png");
            System.out.println("per step: " + perStep.first().metadata());
        }
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(model).build()) {
            if (p.modelInfo().fusedSteps() == 4) {
                GenerationResult fused = p.generate(request);
                save(fused.first().image(), "fox-fused.png");
                assertTrue(fused.first().metadata().fused());
                int diff = ImageComparison.maxDifference(
                        perStep.first().image(), fused.first().image());
                System.out.println("fused vs per step: max difference " + diff + " LSB");
                // Both keep x in fp16 for the graph; they differ in where the Euler sum is rounded (host fp32 vs
                // in-graph), which fp16 activations amplify through the transformer; a few LSB are expected.
                assertTrue(diff <= 32, "fused and per-step images differ by " + diff + " LSB");
            }
        }
        assertEquals(baseline, OpenSessionCounter.current());
    }
}
