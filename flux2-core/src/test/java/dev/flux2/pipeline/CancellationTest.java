package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InferenceException;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import org.junit.jupiter.api.Test;

/** Cancellation through the token, failures inside the backend, and release of every handle on every path. */
class CancellationTest {

    private static void assertAllHandlesClosedOnce(FakeBackend backend) {
        assertFalse(backend.texts.isEmpty());
        for (FakeBackend.FakeText text : backend.texts) {
            assertEquals(1, text.closes.get(), "text embedding closed exactly once");
        }
        for (FakeBackend.FakeSession session : backend.sessions) {
            assertEquals(1, session.closes.get(), "denoiser session closed exactly once");
        }
    }

    @Test
    void tokenCancelledFromTheListenerStopsBeforeTheNextStep() {
        FakeBackend backend = new FakeBackend(FakeModel.baseModel().withFusedSteps(0));
        CancellationToken token = new CancellationToken();
        GenerationRequest request =
                GenerationRequest.builder("x").seed(1).steps(4).build();
        GenerationControls controls = GenerationControls.none()
                .withProgress(e -> {
                    if (e.stage() == Stage.DENOISE && e.kind() == ProgressEvent.Kind.ADVANCED && e.completed() == 2) {
                        token.cancel();
                    }
                })
                .withCancellation(token);
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationCancelledException e =
                    assertThrows(GenerationCancelledException.class, () -> engine.generate(request, controls));
            assertTrue(e.getMessage().contains("step 3/4"), e.getMessage());
            assertTrue(e.getMessage().contains("CancellationToken"), e.getMessage());
        }
        assertEquals(4, backend.velocityCalls.size(), "two CFG steps of two passes each, none after cancel");
        assertEquals(2, backend.texts.size());
        assertAllHandlesClosedOnce(backend);
        assertEquals(1, backend.abortHookRuns.get(), "the backend's abort hook ran");
        assertTrue(backend.decodedLatents.isEmpty());
        assertFalse(backend.closedWhileBusy);
    }

    @Test
    void tokenCancelledBeforeStartRunsNothing() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        CancellationToken token = new CancellationToken();
        token.cancel();
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest request = GenerationRequest.builder("x").seed(1).build();
            assertThrows(
                    GenerationCancelledException.class,
                    () -> engine.generate(request, GenerationControls.none().withCancellation(token)));
        }
        assertEquals(java.util.List.of("close"), backend.calls);
    }

    @Test
    void backendFailureWhileCancelledBecomesCancellationWithCause() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        backend.blockAtStep = 1;
        CancellationToken token = new CancellationToken();
        GenerationRequest request = GenerationRequest.builder("x").seed(1).build();
        GenerationControls controls = GenerationControls.none().withCancellation(token);
        Thread canceller = new Thread(() -> {
            try {
                backend.blocked.await();
                token.cancel();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        canceller.start();
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationCancelledException e =
                    assertThrows(GenerationCancelledException.class, () -> engine.generate(request, controls));
            assertNotNull(e.getCause());
            assertInstanceOf(IllegalStateException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("terminate flag"));
            assertTrue(e.getMessage().contains("step 2/4"), e.getMessage());
        }
        assertAllHandlesClosedOnce(backend);
    }

    @Test
    void backendFailureIsWrappedWithStageAndHandlesAreClosed() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        IllegalStateException bug = new IllegalStateException("kernel exploded");
        backend.failOnPredict = bug;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest request = GenerationRequest.builder("x").seed(1).build();
            InferenceException e = assertThrows(InferenceException.class, () -> engine.generate(request));
            assertSame(bug, e.getCause());
            assertTrue(e.getMessage().contains("step 1/4"), e.getMessage());
        }
        assertAllHandlesClosedOnce(backend);
    }

    @Test
    void sdkExceptionsFromTheBackendPassThrough() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        InferenceException failure = new InferenceException("vae decoder chunk 2/4 failed");
        backend.failOnDecode = failure;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest request = GenerationRequest.builder("x").seed(1).build();
            assertSame(failure, assertThrows(InferenceException.class, () -> engine.generate(request)));
        }
        assertAllHandlesClosedOnce(backend);
    }
}
