package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.ProviderFallback;
import dev.flux2.onnx.options.ProviderNames;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ProviderSelectorTest {
    @Test
    void namesAreCaseInsensitiveWithAliases() {
        assertEquals(OrtProvider.CUDA, ProviderNames.parse("CUDA"));
        assertEquals(OrtProvider.TENSOR_RT, ProviderNames.parse("TensorRT"));
        assertEquals(OrtProvider.TENSOR_RT, ProviderNames.parse("trt"));
        assertEquals(OrtProvider.CORE_ML, ProviderNames.parse("core_ml"));
        assertEquals(OrtProvider.DIRECT_ML, ProviderNames.parse("dml"));
        assertEquals(OrtProvider.CPU, ProviderNames.parse(" cpu "));
    }

    @Test
    void unknownNameFailsEvenWithFallback() {
        String msg = assertThrows(
                        InvalidRequestException.class,
                        () -> ProviderSelector.select(List.of("cudaa"), ProviderFallback.WARN, 0))
                .getMessage();
        assertTrue(msg.contains("'cudaa'") && msg.contains("cuda") && msg.contains("coreml"), msg);
    }

    @Test
    void cpuOnlyNeedsNothing() {
        assertEquals(
                List.of(),
                ProviderSelector.select(List.of("cpu"), ProviderFallback.FAIL, 0)
                        .providers());
        assertEquals(
                List.of(),
                ProviderSelector.select(List.of(), ProviderFallback.FAIL, 0).providers());
    }

    @Test
    void unavailableCudaFailsNamingItAndTheReason() {
        Assumptions.assumeFalse(
                OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA),
                "this test needs the CPU-only ONNX Runtime jar");
        String msg = assertThrows(
                        ModelLoadException.class,
                        () -> ProviderSelector.select(List.of("cuda"), ProviderFallback.FAIL, 0))
                .getMessage();
        assertTrue(msg.contains("CUDA") && msg.contains("unavailable") && msg.contains("not built into"), msg);
    }

    @Test
    void unavailableCudaFallsBackToCpuWithWarning() {
        Assumptions.assumeFalse(
                OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA),
                "this test needs the CPU-only ONNX Runtime jar");
        assertEquals(
                List.of(),
                ProviderSelector.select(List.of("cuda", "cpu"), ProviderFallback.WARN, 0)
                        .providers());
    }
}
