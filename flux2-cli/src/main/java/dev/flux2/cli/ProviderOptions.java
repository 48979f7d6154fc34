package dev.flux2.cli;

import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.ProviderFallback;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The execution provider options, shared as a picocli {@code @Mixin} by {@code flux2 generate} and {@code flux2
 * serve}: which providers, which ONNX Runtime library, what to do when one is unavailable, and the CUDA provider's
 * device and settings. Each maps to one backend option of {@link OnnxOptions}, which validates them (a CUDA setting
 * without {@code --provider cuda} is refused there).
 */
final class ProviderOptions {
    @Option(
            names = "--provider",
            paramLabel = "NAME",
            split = ",",
            description = "Execution provider(s) to use before CPU: cpu, webgpu, cuda, coreml, directml, …"
                    + " (default cpu). webgpu loads the runtime `flux2 runtime install webgpu` installed; cuda the one"
                    + " `flux2 runtime install cuda` installed (or the class path's onnxruntime_gpu natives).")
    List<String> providers = new ArrayList<>();

    @Option(
            names = "--ort-library",
            paramLabel = "PATH",
            description = "The ONNX Runtime native library to load (any build of the Java binding's version; backend"
                    + " option ort_library). Default: $FLUX2_ORT_LIBRARY, else the installed WebGPU runtime for"
                    + " --provider webgpu, else the installed CUDA runtime for --provider cuda, else the jar's own.")
    Path ortLibrary;

    @Option(
            names = "--allow-fallback",
            description =
                    "Fall back to the next provider (finally CPU) with a warning instead of failing when a provider is unavailable.")
    boolean allowFallback;

    @Option(
            names = "--device-id",
            paramLabel = "N",
            description = "The GPU to run on, for cuda (and tensorrt, rocm, directml): 0 (default) is the first;"
                    + " `nvidia-smi -L` lists them. Backend option device_id.")
    Integer deviceId;

    @Option(
            names = "--gpu-mem-limit",
            paramLabel = "SIZE",
            description = "cuda: the most device memory ONNX Runtime's arena may hold, in bytes or with a unit (8g,"
                    + " 8GiB, 512m); default no limit. Backend option gpu_mem_limit.")
    String gpuMemLimit;

    @Option(
            names = "--cudnn-conv-algo-search",
            paramLabel = "MODE",
            description = "cuda: how cuDNN's convolution algorithms are chosen: heuristic (no timing: a faster first"
                    + " run; the default), exhaustive (times them on the first run of each size) or default."
                    + " Backend option cudnn_conv_algo_search.")
    String cudnnConvAlgoSearch;

    @Option(
            names = "--no-tf32",
            description = "cuda: no TF32 tensor cores for fp32 products (exact fp32, slower: 237 ms against 178 ms for"
                    + " a 1024² step on an H200). Backend option use_tf32=false.")
    boolean noTf32;

    /**
     * @param onnx the backend options being built
     * @return the same builder with these options set (strings go through {@code option(key, value)}, so that a bad
     *     value is refused naming the backend option)
     */
    OnnxOptions.Builder applyTo(OnnxOptions.Builder onnx) {
        onnx.providerFallback(allowFallback ? ProviderFallback.WARN : ProviderFallback.FAIL);
        if (ortLibrary != null) {
            onnx.ortLibrary(ortLibrary.toString());
        }
        if (!providers.isEmpty()) {
            onnx.option(OnnxOptions.PROVIDERS, String.join(",", providers));
        }
        if (deviceId != null) {
            onnx.deviceId(deviceId);
        }
        if (gpuMemLimit != null) {
            onnx.option(OnnxOptions.GPU_MEM_LIMIT, gpuMemLimit);
        }
        if (cudnnConvAlgoSearch != null) {
            onnx.option(OnnxOptions.CUDNN_CONV_ALGO_SEARCH, cudnnConvAlgoSearch);
        }
        if (noTf32) {
            onnx.useTf32(false);
        }
        return onnx;
    }
}
