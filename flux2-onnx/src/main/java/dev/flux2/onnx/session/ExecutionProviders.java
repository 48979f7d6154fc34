package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession.SessionOptions;
import dev.flux2.onnx.attention.AttentionFuser;
import dev.flux2.onnx.options.AttentionMode;
import dev.flux2.onnx.options.WeightsMode;
import dev.flux2.onnx.weights.WeightForm;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The execution providers sessions are created with, in order of preference, after {@link ProviderSelector} has
 * checked that each one can be enabled. The CPU provider is always the implicit last resort. Immutable.
 *
 * @param providers non-CPU providers to add to every session, in order
 * @param deviceId the device index for providers that take one (CUDA, TensorRT, ROCm, DirectML)
 */
public record ExecutionProviders(List<OrtProvider> providers, int deviceId) {

    /** Copies and validates. */
    public ExecutionProviders {
        providers = List.copyOf(providers);
        if (providers.contains(OrtProvider.CPU)) {
            throw new IllegalArgumentException("CPU is implicit and must not be listed");
        }
        if (deviceId < 0) {
            throw new IllegalArgumentException("deviceId must be >= 0, got " + deviceId);
        }
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
            enable(Objects.requireNonNull(p), deviceId, options);
        }
    }

    /**
     * The one place where the backend option {@code attention} meets the providers.
     *
     * @param mode the backend option {@code attention}
     * @return whether the transformer's and the VAE decoder's attention runs fused on these providers
     */
    public boolean fusesAttention(AttentionMode mode) {
        return mhaFusion(mode).isPresent();
    }

    /**
     * The one place where the backend option {@code attention} meets the providers.
     *
     * @param mode the backend option {@code attention}
     * @return the precision the transformer's and the VAE decoder's attention runs fused in on these providers, empty
     *     when it runs as the graph writes it
     */
    public Optional<AttentionFuser.Precision> mhaFusion(AttentionMode mode) {
        return switch (mode) {
            case FUSED -> Optional.of(AttentionFuser.Precision.FP32);
            case FUSED_FP16 -> Optional.of(AttentionFuser.Precision.FP16);
            case GRAPH -> Optional.empty();
            // CUDA: fp16 fused attention (docs/fused-attention.md §9). The CPU and WebGPU: the graphs as exported
            // (docs/fused-attention.md §8: on WebGPU fused is faster at 1024² but slower at 512² and its accuracy
            // evidence disagrees; the CPU inconclusive at 1024²). A provider joins here once it is measured faster
            // and accurate.
            case AUTO -> firstIs(OrtProvider.CUDA) ? Optional.of(AttentionFuser.Precision.FP16) : Optional.empty();
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
            case AUTO -> firstIs(OrtProvider.WEBGPU) ? WeightForm.DEQUANTIZED : WeightForm.PACKED;
        };
    }

    private boolean firstIs(OrtProvider provider) {
        return !providers.isEmpty() && providers.get(0) == provider;
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
     * Enables one provider on session options with default settings.
     *
     * @param provider the provider
     * @param deviceId device index where the provider takes one
     * @param options the options
     * @throws OrtException when the runtime cannot enable it
     * @throws UnsupportedProviderException when the Java API has no way to enable it
     */
    static void enable(OrtProvider provider, int deviceId, SessionOptions options) throws OrtException {
        switch (provider) {
            case CPU -> {}
            case CUDA -> options.addCUDA(deviceId);
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
