package dev.flux2.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtProvider;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.attention.AttentionMode;
import dev.flux2.onnx.session.OptimizationLevel;
import dev.flux2.onnx.session.ProviderFallback;
import dev.flux2.onnx.stage.VaeAttentionMode;
import dev.flux2.onnx.weights.WeightForm;
import dev.flux2.onnx.weights.WeightsMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OnnxOptionsTest {
    @Test
    void defaultsWhenEmpty() {
        OnnxOptions d = OnnxOptions.parse(Map.of());
        assertEquals(OnnxOptions.defaults(), d);
        assertEquals(0, d.threads());
        assertEquals(List.of(), d.providers());
        assertEquals(ProviderFallback.FAIL, d.providerFallback());
        assertEquals(VaeAttentionMode.AUTO, d.vaeAttention());
        assertEquals(0, d.vaeChunkSize());
        assertTrue(d.fusedEnabled());
        assertEquals(Optional.empty(), d.optimizationLevel());
        assertTrue(d.pinDimensions());
        assertEquals(0, d.deviceId());
        assertTrue(d.cpuTuning().isEmpty());
    }

    @Test
    void cpuTunedChoosesTheEdits() {
        assertEquals(
                Optional.of(dev.flux2.onnx.tuning.CpuTuning.FULL),
                OnnxOptions.parse(Map.of("cpu_tuned", " TRUE ")).cpuTuning());
        assertEquals(
                Optional.of(new dev.flux2.onnx.tuning.CpuTuning(false, true)),
                OnnxOptions.parse(Map.of("cpu_tuned", "fp32")).cpuTuning());
        assertEquals(
                Optional.of(new dev.flux2.onnx.tuning.CpuTuning(true, false)),
                OnnxOptions.parse(Map.of("cpu_tuned", "acc0")).cpuTuning());
        assertTrue(OnnxOptions.parse(Map.of("cpu_tuned", "false")).cpuTuning().isEmpty());
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("cpu_tuned", "yes")))
                .getMessage();
        assertTrue(msg.contains("cpu_tuned") && msg.contains("fp32"), msg);
    }

    @Test
    void weightsChoosePackedOrDequantizedAndAutoDequantizesOnWebGpuOnly() {
        assertEquals(WeightsMode.AUTO, OnnxOptions.defaults().weights());
        assertEquals(
                WeightsMode.PACKED,
                OnnxOptions.parse(Map.of("weights", "packed")).weights());
        assertEquals(
                WeightsMode.DEQUANTIZED,
                OnnxOptions.parse(Map.of("weights", "dequantized")).weights());
        assertEquals(
                WeightsMode.DEQUANTIZED_FP16,
                OnnxOptions.parse(Map.of("weights", "dequantized_fp16")).weights());
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("weights", "fp16")))
                .getMessage();
        assertTrue(
                msg.contains("weights")
                        && msg.contains("auto, packed, dequantized or dequantized_fp16")
                        && msg.contains("'fp16'"),
                msg);
        // Measured 2.1x faster at 512² on WebGPU with fp32 products and the packed graph's accuracy
        // (docs/fused-attention.md §8); the CPU's MatMulNBits is its fast path.
        assertEquals(WeightForm.DEQUANTIZED, WeightsMode.AUTO.form(List.of(OrtProvider.WEBGPU, OrtProvider.CPU)));
        assertEquals(WeightForm.PACKED, WeightsMode.AUTO.form(List.of(OrtProvider.CPU)));
        assertEquals(WeightForm.PACKED, WeightsMode.AUTO.form(List.of(OrtProvider.CUDA, OrtProvider.CPU)));
        assertEquals(WeightForm.PACKED, WeightsMode.AUTO.form(List.of()));
        assertEquals(WeightForm.DEQUANTIZED, WeightsMode.DEQUANTIZED.form(List.of(OrtProvider.CPU)));
        assertEquals(WeightForm.DEQUANTIZED_FP16, WeightsMode.DEQUANTIZED_FP16.form(List.of(OrtProvider.CPU)));
        assertEquals(WeightForm.PACKED, WeightsMode.PACKED.form(List.of(OrtProvider.WEBGPU)));
    }

    @Test
    void attentionChoosesFusedOrGraphAndAutoFusesNowhereYet() {
        assertEquals(AttentionMode.AUTO, OnnxOptions.defaults().attention());
        assertEquals(
                AttentionMode.FUSED,
                OnnxOptions.parse(Map.of("attention", " Fused")).attention());
        assertEquals(
                AttentionMode.GRAPH,
                OnnxOptions.parse(Map.of("attention", "graph")).attention());
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("attention", "mha")))
                .getMessage();
        assertTrue(msg.contains("attention") && msg.contains("auto, fused or graph") && msg.contains("'mha'"), msg);
        // Measured neither faster nor as close to the graph on WebGPU (docs/fused-attention.md §5).
        assertFalse(AttentionMode.AUTO.fuses(List.of(OrtProvider.WEBGPU)));
        assertFalse(AttentionMode.AUTO.fuses(List.of(OrtProvider.CPU)));
        assertFalse(AttentionMode.AUTO.fuses(List.of(OrtProvider.CUDA, OrtProvider.CPU)));
        assertTrue(AttentionMode.FUSED.fuses(List.of(OrtProvider.CPU)));
        assertFalse(AttentionMode.GRAPH.fuses(List.of(OrtProvider.WEBGPU)));
    }

    @Test
    void parsesEveryOption() {
        OnnxOptions o = OnnxOptions.parse(Map.of(
                "graph_optimization_level", "Disabled", "fused", "off", "pin_dimensions", "false", "device_id", "2"));
        assertEquals(Optional.of(OptimizationLevel.DISABLED), o.optimizationLevel());
        assertFalse(o.fusedEnabled());
        assertFalse(o.pinDimensions());
        assertEquals(2, o.deviceId());

        OnnxOptions r = OnnxOptions.parse(Map.of(
                "threads", " 3 ",
                "providers", "CUDA, coreml,,cpu",
                "provider_fallback", "WARN",
                "vae_attention", "chunked",
                "vae_chunk_size", "256"));
        assertEquals(3, r.threads());
        assertEquals(List.of("cuda", "coreml", "cpu"), r.providers(), "order of preference kept, blanks skipped");
        assertEquals(ProviderFallback.WARN, r.providerFallback());
        assertEquals(VaeAttentionMode.CHUNKED, r.vaeAttention());
        assertEquals(256, r.vaeChunkSize());
        assertEquals(
                VaeAttentionMode.WHOLE,
                OnnxOptions.parse(Map.of("vae_attention", "whole")).vaeAttention());
    }

    @Test
    void unknownKeyListsTheKnownOnes() {
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("fusd", "off")))
                .getMessage();
        assertTrue(
                msg.contains("'fusd'")
                        && msg.contains("fused")
                        && msg.contains("graph_optimization_level")
                        && msg.contains("pin_dimensions")
                        && msg.contains("device_id"),
                msg);
        for (String key : List.of("threads", "providers", "provider_fallback", "vae_attention", "vae_chunk_size")) {
            assertTrue(msg.contains(key), key + " listed: " + msg);
        }
    }

    @Test
    void badValuesNameKeyValueAndAccepted() {
        String msg = assertThrows(
                        InvalidRequestException.class,
                        () -> OnnxOptions.parse(Map.of("graph_optimization_level", "max")))
                .getMessage();
        assertTrue(msg.contains("graph_optimization_level") && msg.contains("'max'") && msg.contains("disabled"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("fused", "yes")))
                .getMessage();
        assertTrue(msg.contains("fused must be auto or off, got 'yes'"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("device_id", "-1")))
                .getMessage();
        assertTrue(msg.contains("device_id"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("provider_fallback", "skip")))
                .getMessage();
        assertTrue(msg.contains("provider_fallback must be fail or warn, got 'skip'"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("vae_attention", "half")))
                .getMessage();
        assertTrue(msg.contains("vae_attention must be auto, chunked or whole, got 'half'"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("providers", "cuda,cudaa")))
                .getMessage();
        assertTrue(
                msg.contains("providers") && msg.contains("'cudaa'") && msg.contains("known providers"),
                "an unknown provider is an option error naming the key, the value and the known names: " + msg);
    }

    @Test
    void negativeThreadsAndChunkSizesAreRejected() {
        InvalidRequestException threads =
                assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("threads", "-1")));
        assertTrue(
                threads.getMessage().contains("threads must be an integer >= 0")
                        && threads.getMessage().contains("got '-1'"),
                threads.getMessage());
        InvalidRequestException chunks =
                assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("vae_chunk_size", "-8")));
        assertTrue(
                chunks.getMessage().contains("vae_chunk_size must be an integer >= 0")
                        && chunks.getMessage().contains("got '-8'"),
                chunks.getMessage());
        InvalidRequestException text =
                assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("threads", "many")));
        assertTrue(text.getMessage().contains("got 'many'"), text.getMessage());
    }
}
