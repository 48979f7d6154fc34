package dev.flux2.onnx.options;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The CUDA provider's settings from {@link OnnxOptions}, as ONNX Runtime's CUDA provider options take them
 * ({@code ai.onnxruntime.providers.OrtCUDAProviderOptions.add(key, value)}). Immutable.
 *
 * @param gpuMemLimit {@value OnnxOptions#GPU_MEM_LIMIT}: the most bytes the provider's memory arena may hold on the
 *     device; 0 for no limit (ONNX Runtime's default)
 * @param convAlgoSearch {@value OnnxOptions#CUDNN_CONV_ALGO_SEARCH}: how cuDNN's convolution algorithms are chosen
 * @param useTf32 {@value OnnxOptions#USE_TF32}: whether fp32 matrix products and convolutions may use TF32 tensor
 *     cores (ONNX Runtime's default, and measured faster on an H200: 178 ms against 237 ms for a 1024² denoiser
 *     step, docs/gpu.md)
 */
public record CudaSettings(long gpuMemLimit, CudnnConvAlgoSearch convAlgoSearch, boolean useTf32) {
    /**
     * The defaults: no memory limit and TF32 on (ONNX Runtime's), cuDNN's heuristic algorithm choice (ONNX Runtime's
     * default is exhaustive: on an H200 a fresh 1024² image took 8.19 s with it and 6.63 s without, the VAE's
     * convolutions timed on their first run, and a warm image 0.05–0.07 s faster; docs/performance.md, "Why cuDNN's
     * heuristic search is the default on CUDA").
     */
    public static final CudaSettings DEFAULTS = new CudaSettings(0, CudnnConvAlgoSearch.HEURISTIC, true);

    /** Checks for null and a negative limit. */
    public CudaSettings {
        Objects.requireNonNull(convAlgoSearch, "convAlgoSearch");
        if (gpuMemLimit < 0) {
            throw new IllegalArgumentException("gpuMemLimit must be >= 0, got " + gpuMemLimit);
        }
    }

    /**
     * @param deviceId the device index
     * @return ONNX Runtime's CUDA provider options: {@code device_id}, {@code gpu_mem_limit} (when limited),
     *     {@code cudnn_conv_algo_search}, {@code use_tf32}
     */
    public Map<String, String> providerOptions(int deviceId) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("device_id", Integer.toString(deviceId));
        if (gpuMemLimit > 0) {
            m.put("gpu_mem_limit", Long.toString(gpuMemLimit));
        }
        m.put("cudnn_conv_algo_search", convAlgoSearch.name());
        m.put("use_tf32", useTf32 ? "1" : "0");
        return m;
    }
}
