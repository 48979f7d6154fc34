package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions, memory policies, cancellation, close and providers, observed through the public API. */
class LifecycleTest {
    /** text encoder, transformer, VAE pre, attention, 4 post stages. */
    private static final int GRAPHS_OF_A_TEXT_TO_IMAGE_RUN = 8;

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;
    private int baseline;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("bundle"));
    }

    @BeforeEach
    void countSessions() {
        baseline = OpenSessionCounter.current();
    }

    private static GenerationRequest.Builder request(long seed) {
        return GenerationRequest.builder("a lighthouse").seed(seed).size(48, 48);
    }

    @Test
    void sequentialKeepsTheSessionsItsBudgetAllowsBetweenGenerations() {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.SEQUENTIAL)
                .build()) {
            assertEquals(baseline, OpenSessionCounter.current(), "build() opens no session");
            p.generate(request(1).build());
            // The miniature's graphs all fit beside each other within 1.3 x the largest + 300 MiB: all are kept.
            assertEquals(baseline + GRAPHS_OF_A_TEXT_TO_IMAGE_RUN, OpenSessionCounter.current());
            long created = OpenSessionCounter.created();
            p.generate(request(2).build());
            assertEquals(created, OpenSessionCounter.created(), "the second generation creates no session");
            assertEquals(baseline + GRAPHS_OF_A_TEXT_TO_IMAGE_RUN, OpenSessionCounter.current());
        }
        assertEquals(baseline, OpenSessionCounter.current(), "close() releases the kept sessions");
    }

    @Test
    void residentKeepsSessionsAcrossGenerationsAndCloseReleasesThem() {
        Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .build();
        try {
            GenerationResult first = p.generate(request(1).build());
            assertEquals(baseline + GRAPHS_OF_A_TEXT_TO_IMAGE_RUN, OpenSessionCounter.current());
            GenerationResult again = p.generate(request(1).build());
            assertEquals(
                    baseline + GRAPHS_OF_A_TEXT_TO_IMAGE_RUN,
                    OpenSessionCounter.current(),
                    "the second generation reuses the sessions");
            assertEquals(
                    0,
                    ImageComparison.maxDifference(
                            first.first().image(), again.first().image()));
            // Another resolution replaces the per-resolution sessions instead of adding to them.
            p.generate(request(3).size(64, 32).build());
            assertEquals(baseline + GRAPHS_OF_A_TEXT_TO_IMAGE_RUN, OpenSessionCounter.current());
        } finally {
            p.close();
        }
        assertEquals(baseline, OpenSessionCounter.current(), "close() releases every resident session");
    }

    @Test
    void cancellingAtStep2StopsAndReleasesEverything() {
        for (MemoryPolicy policy : MemoryPolicy.values()) {
            CancellationToken token = new CancellationToken();
            List<ProgressEvent> events = new ArrayList<>();
            try (Flux2Pipeline p = Flux2Pipeline.builder()
                    .model(bundle.directory())
                    .memoryPolicy(policy)
                    .build()) {
                GenerationCancelledException e = assertThrows(
                        GenerationCancelledException.class,
                        () -> p.generate(
                                request(5).build(),
                                GenerationControls.none()
                                        .withProgress(event -> {
                                            events.add(event);
                                            if (event.stage() == Stage.DENOISE
                                                    && event.kind() == ProgressEvent.Kind.ADVANCED
                                                    && event.completed() == 2) {
                                                token.cancel();
                                            }
                                        })
                                        .withCancellation(token)));
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
                assertTrue(
                        events.stream().noneMatch(ev -> ev.stage() == Stage.VAE_DECODE),
                        policy + ": decoding must not start after the cancellation");
                assertTrue(
                        events.stream().noneMatch(ev -> ev.stage() == Stage.DENOISE && ev.completed() > 2),
                        policy + ": no step after step 2");
                if (policy == MemoryPolicy.SEQUENTIAL) {
                    // The kept text encoder and transformer (the miniature's graphs all fit the budget); the VAE
                    // decoder opened ahead during the denoise loop was discarded with the cancelled generation.
                    assertEquals(baseline + 2, OpenSessionCounter.current(), "a cancelled generation leaks nothing");
                }
                // The pipeline stays usable after a cancelled generation.
                assertEquals(48, p.generate(request(6).build()).first().image().getWidth());
            }
            assertEquals(baseline, OpenSessionCounter.current(), policy + ": close after a cancellation");
        }
    }

    @Test
    void useAfterCloseThrowsPipelineClosed() {
        Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build();
        p.close();
        p.close();
        assertThrows(PipelineClosedException.class, () -> p.generate(request(1).build()));
        assertThrows(PipelineClosedException.class, p::modelInfo);
        assertEquals(baseline, OpenSessionCounter.current());
    }

    @Test
    void concurrentGenerationsGiveTheSameImagesAsSequentialOnes() throws Exception {
        GenerationResult reference;
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            reference = p.generate(request(8).build());
        }
        for (MemoryPolicy policy : MemoryPolicy.values()) {
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try (Flux2Pipeline p = Flux2Pipeline.builder()
                    .model(bundle.directory())
                    .memoryPolicy(policy)
                    .build()) {
                List<Future<GenerationResult>> results = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    results.add(pool.submit(() -> p.generate(request(8).build())));
                }
                for (Future<GenerationResult> f : results) {
                    assertEquals(
                            0,
                            ImageComparison.maxDifference(
                                    reference.first().image(),
                                    f.get(60, TimeUnit.SECONDS).first().image()),
                            policy.toString());
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(baseline, OpenSessionCounter.current());
        }
    }

    @Test
    void unavailableCudaFailsOrFallsBackAsRequested() {
        // Decided before building: with a usable CUDA the FAIL build would succeed (and leak its pipeline).
        org.junit.jupiter.api.Assumptions.assumeFalse(
                ai.onnxruntime.OrtEnvironment.getAvailableProviders().contains(ai.onnxruntime.OrtProvider.CUDA),
                "this test needs the CPU-only ONNX Runtime jar");
        org.junit.jupiter.api.Assumptions.assumeFalse(
                java.nio.file.Files.isDirectory(
                        dev.flux2.onnx.runtime.CudaRuntime.folder(dev.flux2.onnx.runtime.WebGpuRuntime.defaultHome())),
                "this test needs no CUDA runtime installed");
        String msg = assertThrows(
                        ModelLoadException.class,
                        () -> Flux2Pipeline.builder()
                                .model(bundle.directory())
                                .backendOption("providers", "cuda")
                                .backendOption("provider_fallback", "fail")
                                .build())
                .getMessage();
        // Asked for on the CPU jar without the CUDA runtime installed: how to get it, and how to go on without it.
        assertTrue(msg.contains("the CUDA runtime (com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0"), msg);
        assertTrue(msg.contains("flux2 runtime install cuda"), msg);
        assertTrue(msg.endsWith("Set the backend option provider_fallback=warn to continue without it"), msg);
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .backendOption("providers", "cuda")
                .backendOption("provider_fallback", "warn")
                .backendOption("threads", "1")
                .build()) {
            assertEquals(48, p.generate(request(1).build()).first().image().getHeight());
        }
    }
}
