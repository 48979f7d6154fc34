package dev.flux2.onnx.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
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
        assertEquals(CpuTuned.OFF, d.cpuTuned());
    }

    @Test
    void cpuTunedChoosesTheEdits() {
        assertEquals(
                CpuTuned.FULL, OnnxOptions.parse(Map.of("cpu_tuned", " TRUE ")).cpuTuned());
        assertEquals(
                CpuTuned.FP32, OnnxOptions.parse(Map.of("cpu_tuned", "fp32")).cpuTuned());
        assertEquals(
                CpuTuned.ACC0, OnnxOptions.parse(Map.of("cpu_tuned", "acc0")).cpuTuned());
        assertEquals(
                CpuTuned.OFF, OnnxOptions.parse(Map.of("cpu_tuned", "false")).cpuTuned());
        // Which passes each value means: DerivationPlanTest.
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
        // Which form runs on which provider: DerivationPlanTest.
    }

    @Test
    void attentionChoosesFusedOrGraph() {
        assertEquals(AttentionMode.AUTO, OnnxOptions.defaults().attention());
        assertEquals(
                AttentionMode.FUSED,
                OnnxOptions.parse(Map.of("attention", " Fused")).attention());
        assertEquals(
                AttentionMode.GRAPH,
                OnnxOptions.parse(Map.of("attention", "graph")).attention());
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxOptions.parse(Map.of("attention", "mha")))
                .getMessage();
        assertTrue(
                msg.contains("attention") && msg.contains("auto, fused, graph or fused_fp16") && msg.contains("'mha'"),
                msg);
        assertEquals(
                AttentionMode.FUSED_FP16,
                OnnxOptions.parse(Map.of("attention", "fused_fp16")).attention());
        // Which provider fuses: DerivationPlanTest.
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

    @Test
    void theBuilderAndTheStringsAgree() {
        OnnxOptions typed = OnnxOptions.builder()
                .threads(3)
                .providers(List.of("cuda", "webgpu"))
                .providerFallback(ProviderFallback.WARN)
                .vaeAttention(VaeAttentionMode.WHOLE)
                .vaeChunkSize(128)
                .fused(false)
                .graphOptimizationLevel(OptimizationLevel.BASIC)
                .pinDimensions(false)
                .deviceId(1)
                .cpuTuned(CpuTuned.FP32)
                .allowSpinning(false)
                .ortLibrary("/opt/ort/libonnxruntime.so")
                .attention(AttentionMode.FUSED)
                .build();
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("threads", "3");
        expected.put("providers", "cuda,webgpu");
        expected.put("provider_fallback", "warn");
        expected.put("vae_attention", "whole");
        expected.put("vae_chunk_size", "128");
        expected.put("fused", "off");
        expected.put("graph_optimization_level", "basic");
        expected.put("pin_dimensions", "false");
        expected.put("device_id", "1");
        expected.put("cpu_tuned", "fp32");
        expected.put("allow_spinning", "false");
        expected.put("ort_library", "/opt/ort/libonnxruntime.so");
        expected.put("attention", "fused");
        assertEquals(expected, typed.asBackendOptions());
        assertEquals(
                List.copyOf(expected.keySet()),
                List.copyOf(typed.asBackendOptions().keySet()),
                "KEYS order");
        assertEquals(typed, OnnxOptions.parse(typed.asBackendOptions()));
        assertEquals(Map.of(), OnnxOptions.defaults().asBackendOptions(), "the defaults need no option");
        assertEquals(OnnxOptions.defaults(), OnnxOptions.builder().build());
    }

    @Test
    void buildRejectsWhatParseRejects() {
        InvalidRequestException threads = assertThrows(
                InvalidRequestException.class,
                () -> OnnxOptions.builder().threads(-2).build());
        assertTrue(
                threads.getMessage().contains("threads must be an integer >= 0")
                        && threads.getMessage().contains("got '-2'"),
                threads.getMessage());
        InvalidRequestException provider = assertThrows(
                InvalidRequestException.class,
                () -> OnnxOptions.builder().providers(List.of("cudaa")).build());
        assertTrue(
                provider.getMessage().contains("providers")
                        && provider.getMessage().contains("'cudaa'")
                        && provider.getMessage().contains("known providers"),
                provider.getMessage());
        InvalidRequestException blank = assertThrows(
                InvalidRequestException.class,
                () -> OnnxOptions.builder().providers(List.of("cuda,webgpu")).build());
        assertTrue(blank.getMessage().contains("none with a comma"), blank.getMessage());
        assertThrows(
                InvalidRequestException.class,
                () -> OnnxOptions.builder().ortLibrary(" ").build());
    }
}
