package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession.SessionOptions;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
