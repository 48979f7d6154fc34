package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code nvidia-smi}'s answer read ({@link CudaDevices#parse}) and ONNX Runtime's CUDA failures explained
 * ({@link CudaProbe#explain}): no GPU needed.
 */
class CudaDevicesTest {
    @Test
    void readsNvidiaSmisCsv() {
        CudaDevices.Query q =
                CudaDevices.parse("0, NVIDIA H200, 143771, 143252, 9.0\n1, NVIDIA A10G, 23028, 100, 8.6\n");
        assertEquals(Optional.empty(), q.problem());
        assertEquals(2, q.gpus().size());
        CudaDevices.Gpu h200 = q.gpu(0).orElseThrow();
        assertEquals("NVIDIA H200", h200.name());
        assertEquals(143771L << 20, h200.totalBytes());
        assertEquals(143252L << 20, h200.freeBytes());
        assertEquals("9.0", h200.computeCapability());
        assertEquals("NVIDIA H200, 140.4 GiB (139.9 GiB free), compute capability 9.0", h200.describe());
        assertEquals("8.6", q.gpu(1).orElseThrow().computeCapability());
        assertEquals(Optional.empty(), q.gpu(2));
    }

    @Test
    void anAnswerThatIsNoTableIsTheProblem() {
        CudaDevices.Query none = CudaDevices.parse("No devices were found\n");
        assertTrue(none.gpus().isEmpty());
        assertEquals(Optional.of("nvidia-smi answered 'No devices were found'"), none.problem());
        assertEquals(
                Optional.of("nvidia-smi lists no GPU"), CudaDevices.parse("").problem());
        assertEquals(
                Optional.of("nvidia-smi answered '0, NVIDIA H200, [N/A], 1, 9.0'"),
                CudaDevices.parse("0, NVIDIA H200, [N/A], 1, 9.0").problem());
    }

    @Test
    void cudaFailuresAreExplained() {
        String noGpu = CudaProbe.explain(
                "[ONNXRuntimeError] : 1 : FAIL : CUDA failure 100: no CUDA-capable device is detected ; GPU=0\nmore",
                0);
        assertTrue(noGpu.startsWith("the NVIDIA driver sees no GPU"), noGpu);
        assertTrue(
                noGpu.endsWith("(ONNX Runtime: [ONNXRuntimeError] : 1 : FAIL : CUDA failure 100: no CUDA-capable"
                        + " device is detected ; GPU=0)"),
                noGpu);
        assertTrue(CudaProbe.explain("CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version", 0)
                .startsWith("the NVIDIA driver is older than CUDA 12 needs"));
        assertTrue(CudaProbe.explain("CUDA failure 101: invalid device ordinal ; GPU=3", 3)
                .startsWith("device_id 3 names no GPU"));
        assertTrue(CudaProbe.explain("CUDA error cudaErrorMemoryAllocation:out of memory", 1)
                .startsWith("device 1 is out of memory"));
        assertTrue(CudaProbe.explain("something else", 0).startsWith("the CUDA provider failed on device 0"));
    }
}
