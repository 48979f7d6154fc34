package dev.flux2.onnx.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The typed CUDA options of {@link OnnxOptions}: parsed from strings, built, validated in {@code build()} with messages
 * naming the option, the value and what is accepted, refused without the cuda provider, and turned into ONNX
 * Runtime's CUDA provider options (the keys {@code OrtCUDAProviderOptions.add} takes).
 */
class CudaOptionsTest {
    private static OnnxOptions parse(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return OnnxOptions.parse(m);
    }

    @Test
    void theDefaultsAreOnnxRuntimesAndNeedNoOption() {
        CudaSettings cuda = OnnxOptions.defaults().cuda();
        assertEquals(new CudaSettings(0, CudnnConvAlgoSearch.HEURISTIC, true), cuda);
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("device_id", "0");
        expected.put("cudnn_conv_algo_search", "HEURISTIC");
        expected.put("use_tf32", "1");
        assertEquals(expected, cuda.providerOptions(0), "no gpu_mem_limit when unlimited");
    }

    @Test
    void parsedOptionsBecomeOnnxRuntimesCudaProviderOptions() {
        OnnxOptions o = parse(
                "providers", "cuda",
                "device_id", "1",
                "gpu_mem_limit", "8g",
                "cudnn_conv_algo_search", "Exhaustive",
                "use_tf32", "false");
        assertEquals(1, o.deviceId());
        assertEquals(8L << 30, o.cuda().gpuMemLimit());
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("device_id", "1");
        expected.put("gpu_mem_limit", "8589934592");
        expected.put("cudnn_conv_algo_search", "EXHAUSTIVE");
        expected.put("use_tf32", "0");
        assertEquals(expected, o.cuda().providerOptions(o.deviceId()));
        assertEquals(o, OnnxOptions.parse(o.asBackendOptions()), "round trip through the strings");
        assertEquals("8589934592", o.asBackendOptions().get("gpu_mem_limit"));
    }

    @Test
    void memorySizesTakeBytesAndBinaryUnits() {
        assertEquals(
                1L << 20,
                parse("providers", "cuda", "gpu_mem_limit", "1048576").cuda().gpuMemLimit());
        assertEquals(
                512L << 20,
                parse("providers", "cuda", "gpu_mem_limit", "512m").cuda().gpuMemLimit());
        assertEquals(
                512L << 20,
                parse("providers", "cuda", "gpu_mem_limit", "512MiB").cuda().gpuMemLimit());
        assertEquals(
                8L << 30,
                parse("providers", "cuda", "gpu_mem_limit", " 8 GB ").cuda().gpuMemLimit());
        assertEquals(
                2L << 40,
                parse("providers", "cuda", "gpu_mem_limit", "2t").cuda().gpuMemLimit());
        assertEquals(0, parse("providers", "cuda", "gpu_mem_limit", "0").cuda().gpuMemLimit());
    }

    @Test
    void badValuesNameTheOptionTheValueAndWhatIsAccepted() {
        for (String bad : List.of("8 gigs", "-1", "1.5g", "g", "99999999999999999999", "9999999999t")) {
            String m = assertThrows(
                            InvalidRequestException.class, () -> parse("providers", "cuda", "gpu_mem_limit", bad))
                    .getMessage();
            assertEquals(
                    "backend option gpu_mem_limit must be a size in bytes or with a unit (8g, 8GiB, 512m), got '" + bad
                            + "'",
                    m);
        }
        String small = assertThrows(
                        InvalidRequestException.class, () -> parse("providers", "cuda", "gpu_mem_limit", "8"))
                .getMessage();
        assertEquals(
                "backend option gpu_mem_limit must be 0 (no limit) or at least 1 MiB, in bytes or with a unit (8g,"
                        + " 8GiB, 512m), got '8'",
                small);
        String search = assertThrows(
                        InvalidRequestException.class,
                        () -> parse("providers", "cuda", "cudnn_conv_algo_search", "fast"))
                .getMessage();
        assertEquals(
                "backend option cudnn_conv_algo_search must be exhaustive, heuristic or default, got 'fast'", search);
        String tf32 = assertThrows(InvalidRequestException.class, () -> parse("providers", "cuda", "use_tf32", "1"))
                .getMessage();
        assertEquals("backend option use_tf32 must be true or false, got '1'", tf32);
    }

    @Test
    void buildRejectsANegativeOrTinyLimitFromTheTypedBuilder() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> OnnxOptions.builder()
                        .providers(List.of("cuda"))
                        .gpuMemLimit(-5)
                        .build());
        assertTrue(e.getMessage().startsWith("backend option gpu_mem_limit must be 0 (no limit) or at least 1 MiB"));
        assertTrue(e.getMessage().endsWith("got '-5'"), e.getMessage());
        assertEquals(
                64L << 20,
                OnnxOptions.builder()
                        .providers(List.of("cuda"))
                        .gpuMemLimit(64L << 20)
                        .build()
                        .cuda()
                        .gpuMemLimit());
    }

    @Test
    void cudaOptionsWithoutTheCudaProviderAreRefusedNotIgnored() {
        String none = assertThrows(InvalidRequestException.class, () -> parse("use_tf32", "false"))
                .getMessage();
        assertEquals(
                "backend option use_tf32 applies to the cuda provider only, but providers is cpu (the default): add"
                        + " cuda to providers (--provider cuda)",
                none);
        String two = assertThrows(
                        InvalidRequestException.class,
                        () -> OnnxOptions.builder()
                                .providers(List.of("webgpu"))
                                .gpuMemLimit(1L << 30)
                                .cudnnConvAlgoSearch(CudnnConvAlgoSearch.DEFAULT)
                                .build())
                .getMessage();
        assertEquals(
                "backend options gpu_mem_limit, cudnn_conv_algo_search apply to the cuda provider only, but providers"
                        + " is 'webgpu': add cuda to providers (--provider cuda)",
                two);
        // Among others, in any spelling, cuda is enough.
        assertEquals(
                CudnnConvAlgoSearch.DEFAULT,
                parse("providers", "webgpu,CUDA", "cudnn_conv_algo_search", "default")
                        .cuda()
                        .convAlgoSearch());
    }
}
