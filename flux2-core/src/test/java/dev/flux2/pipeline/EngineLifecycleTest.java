package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** close() against running generations, use after close, concurrency. */
class EngineLifecycleTest {

    @Test
    void closeCancelsARunningGenerationWaitsAndClosesTheBackendOnce() throws Exception {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        backend.blockAtStep = 1;
        GenerationEngine engine = new GenerationEngine(backend);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<GenerationResult> running = executor.submit(
                    () -> engine.generate(GenerationRequest.builder("x").seed(1).build()));
            assertTrue(backend.blocked.await(20, TimeUnit.SECONDS), "generation never reached step 2");
            engine.close();
            // When the backend closed, no call was in flight and every handle of the generation was closed
            // (closedWhileBusy below): close() waited for the generation to unwind.
            ExecutionException e = assertThrows(ExecutionException.class, () -> running.get(20, TimeUnit.SECONDS));
            GenerationCancelledException cancelled = assertInstanceOf(GenerationCancelledException.class, e.getCause());
            assertTrue(cancelled.getMessage().contains("closed"), cancelled.getMessage());
            assertInstanceOf(IllegalStateException.class, cancelled.getCause());
            assertEquals(1, backend.closeCount.get());
            assertFalse(backend.closedWhileBusy, "backend closed while a call or handle was still open");
            assertEquals(1, backend.abortHookRuns.get());
            engine.close();
            assertEquals(1, backend.closeCount.get(), "close is idempotent");
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void useAfterCloseThrows() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        GenerationEngine engine = new GenerationEngine(backend);
        assertEquals("fake-distilled", engine.modelInfo().variant());
        engine.close();
        GenerationRequest request = GenerationRequest.builder("x").build();
        PipelineClosedException e = assertThrows(PipelineClosedException.class, () -> engine.generate(request));
        assertTrue(e.getMessage().contains("generate"), e.getMessage());
        assertThrows(PipelineClosedException.class, engine::modelInfo);
        assertEquals(List.of("close"), backend.calls);
    }

    @Test
    void closeFromAProgressListenerCancelsAndClosesAfterUnwinding() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        GenerationEngine engine = new GenerationEngine(backend);
        AtomicReference<Integer> closesSeenInListener = new AtomicReference<>();
        GenerationRequest request = GenerationRequest.builder("x").seed(1).build();
        GenerationControls controls = GenerationControls.none().withProgress(e -> {
            if (e.stage() == Stage.DENOISE && e.kind() == ProgressEvent.Kind.ADVANCED && e.completed() == 1) {
                engine.close();
                closesSeenInListener.set(backend.closeCount.get());
            }
        });
        assertThrows(GenerationCancelledException.class, () -> engine.generate(request, controls));
        assertEquals(0, closesSeenInListener.get(), "the backend must not close under a running generation");
        assertEquals(1, backend.closeCount.get(), "closed once the generation unwound");
        assertFalse(backend.closedWhileBusy);
        assertEquals(1, backend.velocityCalls.size());
    }

    @Test
    void concurrentGenerationsShareTheEngine() throws Exception {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        ExecutorService executor = Executors.newFixedThreadPool(3);
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            List<Future<GenerationResult>> futures = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                long seed = i;
                futures.add(executor.submit(() -> engine.generate(
                        GenerationRequest.builder("x").seed(seed).build())));
            }
            for (int i = 0; i < futures.size(); i++) {
                assertEquals(
                        i,
                        futures.get(i)
                                .get(20, TimeUnit.SECONDS)
                                .first()
                                .metadata()
                                .seed()
                                .getAsLong());
            }
        } finally {
            executor.shutdownNow();
        }
        assertEquals(24, backend.velocityCalls.size());
        assertEquals(1, backend.closeCount.get());
    }

    @Test
    void failingModelInfoClosesTheBackend() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        Flux2BackendWithBrokenInfo broken = new Flux2BackendWithBrokenInfo(backend);
        assertThrows(IllegalStateException.class, () -> new GenerationEngine(broken));
        assertEquals(1, backend.closeCount.get());
    }

    /** Delegates everything but modelInfo(), which fails. */
    private static final class Flux2BackendWithBrokenInfo implements dev.flux2.spi.Flux2Backend {
        private final FakeBackend delegate;

        Flux2BackendWithBrokenInfo(FakeBackend delegate) {
            this.delegate = delegate;
        }

        @Override
        public ModelInfo modelInfo() {
            throw new IllegalStateException("config unreadable");
        }

        @Override
        public dev.flux2.spi.TokenizedPrompt tokenize(String prompt) {
            return delegate.tokenize(prompt);
        }

        @Override
        public dev.flux2.spi.TextEmbedding encodeText(
                dev.flux2.spi.TokenizedPrompt tokens, dev.flux2.spi.StageContext context) {
            return delegate.encodeText(tokens, context);
        }

        @Override
        public dev.flux2.spi.LatentGrid encodeImage(
                dev.flux2.spi.PixelTensor image, dev.flux2.spi.StageContext context) {
            return delegate.encodeImage(image, context);
        }

        @Override
        public dev.flux2.spi.DenoiserSession openDenoiser(
                dev.flux2.spi.DenoiserSetup setup, dev.flux2.spi.StageContext context) {
            return delegate.openDenoiser(setup, context);
        }

        @Override
        public dev.flux2.spi.PixelTensor decodeLatent(
                dev.flux2.spi.LatentGrid latent, dev.flux2.spi.StageContext context) {
            return delegate.decodeLatent(latent, context);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
