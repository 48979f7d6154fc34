package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession.SessionOptions;
import ai.onnxruntime.providers.OrtCUDAProviderOptions;
import dev.flux2.onnx.options.AttentionMode;
import dev.flux2.onnx.options.CudaSettings;
import dev.flux2.onnx.options.WeightsMode;
import dev.flux2.onnx.weights.WeightForm;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The execution providers sessions are created with, in order of preference, after {@link ProviderSelector} has
 * checked that each one can be enabled. The CPU provider is always the implicit last resort. Immutable.
 *
 * @param providers non-CPU providers to add to every session, in order
 * @param deviceId the device index for providers that take one (CUDA, TensorRT, ROCm, DirectML)
 * @param cuda the CUDA provider's settings (memory limit, cuDNN algorithm search, TF32)
 */
public record ExecutionProviders(List<OrtProvider> providers, int deviceId, CudaSettings cuda) {

    /** Copies and validates. */
    public ExecutionProviders {
        providers = List.copyOf(providers);
        Objects.requireNonNull(cuda, "cuda");
        if (providers.contains(OrtProvider.CPU)) {
            throw new IllegalArgumentException("CPU is implicit and must not be listed");
        }
        if (deviceId < 0) {
            throw new IllegalArgumentException("deviceId must be >= 0, got " + deviceId);
        }
    }

    /**
     * @param providers non-CPU providers, in order
     * @param deviceId the device index
     */
    public ExecutionProviders(List<OrtProvider> providers, int deviceId) {
        this(providers, deviceId, CudaSettings.DEFAULTS);
    }

    /** @return CPU only */
    public static ExecutionProviders cpuOnly() {
        return new ExecutionProviders(List.of(), 0);
    }

    /**
     * Adds the providers to session options.
     *
     * @param options the options of a session about to be created
     * @throws OrtException when a provider cannot be enabled
     */
    void applyTo(SessionOptions options) throws OrtException {
        for (OrtProvider p : providers) {
            enable(Objects.requireNonNull(p), deviceId, cuda, options);
        }
    }

    /**
     * The one place where the backend option {@code attention} meets the providers.
     *
     * @param mode the backend option {@code attention}
     * @return whether the transformer's and the VAE decoder's attention runs fused on these providers
     */
    public boolean fusesAttention(AttentionMode mode) {
        return switch (mode) {
            case FUSED -> true;
            case GRAPH -> false;
            // Not fused by default anywhere yet. WebGPU (H200, 2026-12-02, docs/fused-attention.md §8): with the
            // dequantized weights of weightForm's AUTO the 5+20-block step is 2.4x faster fused at 1024² (7.6 s ->
            // 3.19 s) but 0.88x at 512², and the accuracy evidence disagrees: the step's prediction is closer to a
            // CPU fp32 reference fused, one attention alone is further from exact fused (1.7e-2 against 4.2e-3),
            // and on lavapipe the synthetic bundles' images are 3-9 levels from the CPU provider's fused against
            // at most 1 with the graph (WebGpuPipelineTest). The CPU's 1.41x at 512² but 0.94x (inconclusive) at
            // 1024²; CUDA not measurable here. A provider joins here once it is measured faster and accurate.
            case AUTO -> false;
        };
    }

    /**
     * The one place where the backend option {@code weights} meets the providers.
     *
     * @param mode the backend option {@code weights}
     * @return the form of the transformer's block-16 weight products on these providers
     */
    public WeightForm weightForm(WeightsMode mode) {
        return switch (mode) {
            case PACKED -> WeightForm.PACKED;
            case DEQUANTIZED -> WeightForm.DEQUANTIZED;
            case DEQUANTIZED_FP16 -> WeightForm.DEQUANTIZED_FP16;
            // WebGPU's MatMulNBits shader at block 16 is a matrix-vector kernel (docs/fused-attention.md §8); the
            // CPU's MatMulNBits is its fast path; CUDA not measured.
            case AUTO -> firstIsWebGpu() ? WeightForm.DEQUANTIZED : WeightForm.PACKED;
        };
    }

    private boolean firstIsWebGpu() {
        return !providers.isEmpty() && providers.get(0) == OrtProvider.WEBGPU;
    }

    /** @return whether sessions with these providers live on a device (WebGPU, DirectML, CUDA, …) */
    public boolean usesDevice() {
        return DeviceGate.usesDevice(providers);
    }

    /** @return the gate every ONNX Runtime call on these providers' sessions holds */
    DeviceGate gate() {
        return DeviceGate.of(providers);
    }

    /** @return provider names for logs, for example {@code [CUDA, CPU]} */
    public String describe() {
        StringBuilder sb = new StringBuilder("[");
        for (OrtProvider p : providers) {
            sb.append(p.name()).append(", ");
        }
        return sb.append("CPU]").toString();
    }

    /**
     * Enables one provider on session options: CUDA with its settings, the others with their defaults.
     *
     * @param provider the provider
     * @param deviceId device index where the provider takes one
     * @param cuda the CUDA provider's settings
     * @param options the options
     * @throws OrtException when the runtime cannot enable it
     * @throws UnsupportedProviderException when the Java API has no way to enable it
     */
    static void enable(OrtProvider provider, int deviceId, CudaSettings cuda, SessionOptions options)
            throws OrtException {
        switch (provider) {
            case CPU -> {}
            case CUDA -> {
                try (OrtCUDAProviderOptions cudaOptions = new OrtCUDAProviderOptions(deviceId)) {
                    for (Map.Entry<String, String> e :
                            cuda.providerOptions(deviceId).entrySet()) {
                        cudaOptions.add(e.getKey(), e.getValue());
                    }
                    // ONNX Runtime copies the options into the session options: they may be closed after.
                    options.addCUDA(cudaOptions);
                }
            }
            case TENSOR_RT -> options.addTensorrt(deviceId);
            case ROCM -> options.addROCM(deviceId);
            case DIRECT_ML -> options.addDirectML(deviceId);
            case DNNL -> options.addDnnl(true);
            case OPEN_VINO -> options.addOpenVINO("");
            case CORE_ML -> options.addCoreML();
            case NNAPI -> options.addNnapi();
            case ACL -> options.addACL(false);
            case XNNPACK -> options.addXnnpack(Map.of());
            case QNN -> options.addQnn(Map.of());
            case WEBGPU -> options.addWebGPU(Map.of());
            default ->
                throw new UnsupportedProviderException(
                        provider.name() + " cannot be enabled through the ONNX Runtime Java API");
        }
    }

    /** A provider the Java API offers no method to enable. */
    static final class UnsupportedProviderException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnsupportedProviderException(String message) {
            super(message);
        }
    }
}
