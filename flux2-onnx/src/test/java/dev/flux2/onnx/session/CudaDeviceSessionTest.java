package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.InferenceException;
import dev.flux2.onnx.TestStageContext;
import dev.flux2.onnx.options.OptimizationLevel;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session whose providers are CUDA's, without a GPU: the session itself runs on the CPU, its providers say CUDA, as
 * a CUDA session's would. Its runs hold the process-wide device gate (one thread at a time on the device, as for
 * WebGPU), and a runtime failure is an {@link InferenceException} naming the stage and step, the graph and the
 * providers.
 */
class CudaDeviceSessionTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();
    private static final ExecutionProviders CUDA = new ExecutionProviders(List.of(OrtProvider.CUDA), 0);

    @TempDir
    Path dir;

    private ManagedSession session() throws Exception {
        Path doubler = TestGraphs.doubler(dir.resolve("doubler.onnx"));
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        return new ManagedSession(
                new SessionSpec("transformer", doubler, Map.of(), OptimizationLevel.ALL),
                ENV.createSession(doubler.toString(), options),
                options,
                CUDA);
    }

    private static float[] run(ManagedSession s, String input, String where) throws Exception {
        try (OnnxTensor x = OnnxTensor.createTensor(ENV, FloatBuffer.wrap(new float[] {1, 2, 3}), new long[] {1, 3});
                OrtSession.Result r =
                        s.run(new RunCall(Map.of(input, x), Set.of("y"), Map.of(), where), new TestStageContext())) {
            float[] y = new float[3];
            ((OnnxTensor) r.get(0)).getFloatBuffer().get(y);
            return y;
        }
    }

    @Test
    void cudaSessionsShareTheProcessWideDeviceGate() {
        assertTrue(CUDA.usesDevice());
        assertTrue(CUDA.gate().serialises());
        assertTrue(DeviceGate.of(List.of(OrtProvider.CUDA)).serialises());
        assertEquals(CUDA.gate(), DeviceGate.of(List.of(OrtProvider.WEBGPU)), "one gate for every device provider");
        assertFalse(ExecutionProviders.cpuOnly().gate().serialises());
    }

    @Test
    void aRunWaitsWhileAnotherThreadIsOnTheDevice() throws Exception {
        try (ManagedSession s = session()) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                try {
                    DeviceGate.of(List.of(OrtProvider.CUDA)).call(() -> {
                        holding.countDown();
                        try {
                            release.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return null;
                    });
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(holding.await(30, TimeUnit.SECONDS));
            CompletableFuture<float[]> mine = CompletableFuture.supplyAsync(() -> {
                try {
                    return run(s, "x", "transformer step 1/4");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(TimeoutException.class, () -> mine.get(500, TimeUnit.MILLISECONDS), "waits for the device");
            release.countDown();
            assertArrayEquals(new float[] {2, 4, 6}, mine.get(30, TimeUnit.SECONDS));
            other.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRuntimeFailureNamesStageStepGraphAndProviders() throws Exception {
        try (ManagedSession s = session()) {
            InferenceException e =
                    assertThrows(InferenceException.class, () -> run(s, "not_an_input", "transformer step 2/4"));
            assertTrue(e.getMessage().startsWith("transformer step 2/4 failed in ONNX Runtime ("), e.getMessage());
            assertTrue(
                    e.getMessage().contains("graph transformer (doubler.onnx), providers [CUDA, CPU]"), e.getMessage());
            assertTrue(e.backendErrorCode().isPresent());
        }
    }
}
