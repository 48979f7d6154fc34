package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import dev.flux2.testkit.ReferenceMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Progress event sequences, listener isolation, and per-stage / per-image / runtime timings. */
class ProgressAndTimingTest {

    private static String describe(ProgressEvent e) {
        return e.stage() + " " + e.kind() + " " + e.imageIndex() + " " + e.completed() + "/" + e.total();
    }

    @Test
    void perStepEventSequence() {
        List<ProgressEvent> events = Collections.synchronizedList(new ArrayList<>());
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            engine.generate(
                    GenerationRequest.builder("x").seed(1).steps(2).build(),
                    GenerationControls.none().withProgress(events::add));
        }
        List<String> expected = List.of(
                "TOKENIZE STARTED 0 0/1",
                "TOKENIZE FINISHED 0 1/1",
                "TEXT_ENCODE STARTED 0 0/1",
                "TEXT_ENCODE FINISHED 0 1/1",
                "DENOISE STARTED 0 0/2",
                "DENOISE ADVANCED 0 1/2",
                "DENOISE ADVANCED 0 2/2",
                "DENOISE FINISHED 0 2/2",
                "VAE_DECODE STARTED 0 0/1",
                "VAE_DECODE ADVANCED 0 1/2",
                "VAE_DECODE ADVANCED 0 2/2",
                "VAE_DECODE FINISHED 0 2/2");
        assertEquals(
                expected, events.stream().map(ProgressAndTimingTest::describe).toList());
        for (ProgressEvent e : events) {
            assertTrue(!e.elapsed().isNegative());
        }
    }

    @Test
    void imagesEventsAndSharedStagesForSeveralImages() {
        List<ProgressEvent> events = Collections.synchronizedList(new ArrayList<>());
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder("x")
                            .seed(1)
                            .steps(1)
                            .numImages(2)
                            .addReferenceImage(ReferenceMath.testImage(64, 64, 0))
                            .build(),
                    GenerationControls.none().withProgress(events::add));
        }
        assertTrue(result.images().get(0).metadata().timings().perStage().containsKey(Stage.VAE_ENCODE));
        assertTrue(
                !result.images().get(1).metadata().timings().perStage().containsKey(Stage.VAE_ENCODE),
                "the shared encoding is attributed to image 0 only");
        List<String> expected = List.of(
                "TOKENIZE STARTED 0 0/1",
                "TOKENIZE FINISHED 0 1/1",
                "TEXT_ENCODE STARTED 0 0/1",
                "TEXT_ENCODE FINISHED 0 1/1",
                "VAE_ENCODE STARTED 0 0/1",
                "VAE_ENCODE ADVANCED 0 1/1",
                "VAE_ENCODE FINISHED 0 1/1",
                "DENOISE STARTED 0 0/1",
                "DENOISE ADVANCED 0 1/1",
                "DENOISE FINISHED 0 1/1",
                "DENOISE STARTED 1 0/1",
                "DENOISE ADVANCED 1 1/1",
                "DENOISE FINISHED 1 1/1",
                "VAE_DECODE STARTED 0 0/1",
                "VAE_DECODE ADVANCED 0 1/2",
                "VAE_DECODE ADVANCED 0 2/2",
                "VAE_DECODE FINISHED 0 2/2",
                "VAE_DECODE STARTED 1 0/1",
                "VAE_DECODE ADVANCED 1 1/2",
                "VAE_DECODE ADVANCED 1 2/2",
                "VAE_DECODE FINISHED 1 2/2");
        assertEquals(
                expected, events.stream().map(ProgressAndTimingTest::describe).toList());
    }

    @Test
    void fusedDenoiseReportsStartAndFinish() {
        List<ProgressEvent> events = Collections.synchronizedList(new ArrayList<>());
        try (GenerationEngine engine = new GenerationEngine(new FakeBackend(FakeModel.distilledModel()))) {
            engine.generate(
                    GenerationRequest.builder("x").seed(1).build(),
                    GenerationControls.none().withProgress(events::add));
        }
        List<String> denoise = events.stream()
                .filter(e -> e.stage() == Stage.DENOISE)
                .map(ProgressAndTimingTest::describe)
                .toList();
        assertEquals(List.of("DENOISE STARTED 0 0/4", "DENOISE FINISHED 0 4/4"), denoise);
    }

    @Test
    void throwingListenerIsLoggedAndIgnored() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            GenerationResult result = engine.generate(
                    GenerationRequest.builder("x").seed(1).build(),
                    GenerationControls.none().withProgress(e -> {
                        throw new IllegalStateException("listener bug");
                    }));
            assertEquals(64, result.first().image().getWidth());
            assertTrue(log.text().contains("listener bug"), log.text());
            assertTrue(log.text().contains("WARN"), log.text());
            // Once per generation, not once per event (it threw on every one of them).
            assertEquals(1, log.text().split("IllegalStateException: listener bug", -1).length - 1, log.text());
        }
    }

    @Test
    void timingsPerImageAndPerRequest() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(
                    GenerationRequest.builder("x").seed(1).numImages(2).build());
        }
        StageTimings first = result.images().get(0).metadata().timings();
        StageTimings second = result.images().get(1).metadata().timings();
        StageTimings request = result.timings();
        assertEquals(
                Set.of(Stage.TOKENIZE, Stage.TEXT_ENCODE, Stage.DENOISE, Stage.VAE_DECODE),
                first.perStage().keySet(),
                "shared stages are attributed to image 0");
        assertEquals(Set.of(Stage.DENOISE, Stage.VAE_DECODE), second.perStage().keySet());
        assertEquals(
                Set.of(Stage.TOKENIZE, Stage.TEXT_ENCODE, Stage.DENOISE, Stage.VAE_DECODE),
                request.perStage().keySet());
        assertEquals(first.of(Stage.DENOISE).plus(second.of(Stage.DENOISE)), request.of(Stage.DENOISE));
        assertEquals(Duration.ZERO, request.of(Stage.VAE_ENCODE));
        Duration stageSum = request.perStage().values().stream().reduce(Duration.ZERO, Duration::plus);
        assertTrue(request.total().compareTo(stageSum) >= 0, "request wall time covers its stages");
        Duration imageSum = first.perStage().values().stream().reduce(Duration.ZERO, Duration::plus);
        assertEquals(imageSum, first.total());

        // Runtime: 1 text encode + 8 transformer calls + 2 decodes, each reporting NANOS_PER_CALL.
        assertEquals(Duration.ofNanos(backend.reportedRuntimeNanos.get()), request.runtime());
        assertEquals(Duration.ofNanos(11 * FakeBackend.NANOS_PER_CALL), request.runtime());
        assertEquals(Duration.ofNanos(6 * FakeBackend.NANOS_PER_CALL), first.runtime());
        assertEquals(Duration.ofNanos(5 * FakeBackend.NANOS_PER_CALL), second.runtime());
    }
}
