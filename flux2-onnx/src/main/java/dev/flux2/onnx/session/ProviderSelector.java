package dev.flux2.onnx.session;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession.SessionOptions;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.CudaSettings;
import dev.flux2.onnx.options.ProviderFallback;
import dev.flux2.onnx.options.ProviderNames;
import dev.flux2.onnx.runtime.CudaLibraries;
import dev.flux2.onnx.runtime.CudaProbe;
import dev.flux2.onnx.runtime.CudaUnavailableException;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the requested provider names into the providers sessions will use, at load time.
 *
 * <p>Each requested provider is checked twice: it must be in {@link OrtEnvironment#getAvailableProviders()} (the
 * natives on the classpath were built with it), and enabling it on throwaway session options must succeed (the GPU jar
 * lists CUDA even without CUDA libraries; enabling it is what fails, docs/design-notes.md §2). An unavailable provider
 * either fails the load ({@link ProviderFallback#FAIL}) with a {@link ModelLoadException} naming the provider and the
 * reason, or is skipped with a warning ({@link ProviderFallback#WARN}). An unknown name always fails with an
 * {@link InvalidRequestException}: it is a typo, not an unavailable provider. Stateless.
 */
public final class ProviderSelector {
    private static final Logger LOG = LoggerFactory.getLogger(ProviderSelector.class);

    private ProviderSelector() {}

    /**
     * @param requested provider names in order of preference (case-insensitive; {@code cpu}, {@code cuda},
     *     {@code tensorrt}, {@code coreml}, {@code directml}, {@code rocm}, {@code dnnl}, {@code openvino},
     *     {@code nnapi}, {@code acl}, {@code xnnpack}, {@code qnn}, {@code webgpu})
     * @param fallback what to do with an unavailable provider
     * @param deviceId device index for providers that take one
     * @return the providers to use
     * @throws InvalidRequestException for an unknown name
     * @throws ModelLoadException for an unavailable provider under FAIL
     */
    public static ExecutionProviders select(List<String> requested, ProviderFallback fallback, int deviceId) {
        return select(requested, fallback, deviceId, CudaSettings.DEFAULTS);
    }

    /**
     * @param requested provider names in order of preference
     * @param fallback what to do with an unavailable provider
     * @param deviceId device index for providers that take one
     * @param cuda the CUDA provider's settings
     * @return the providers to use
     * @throws InvalidRequestException for an unknown name
     * @throws CudaUnavailableException for CUDA under FAIL when a library it links is missing or no GPU answers
     * @throws ModelLoadException for another unavailable provider under FAIL
     */
    public static ExecutionProviders select(
            List<String> requested, ProviderFallback fallback, int deviceId, CudaSettings cuda) {
        List<OrtProvider> chosen = new ArrayList<>();
        for (String name : requested) {
            OrtProvider provider = ProviderNames.parse(name);
            if (provider == OrtProvider.CPU || chosen.contains(provider)) {
                continue;
            }
            Optional<String> problem;
            try {
                problem = probe(provider, deviceId, cuda);
            } catch (CudaUnavailableException e) {
                if (fallback == ProviderFallback.FAIL) {
                    // Its own exception: the CLI's exit code for an unusable native library, the message as it is.
                    throw new CudaUnavailableException(
                            e.getMessage() + " Set the backend option provider_fallback=warn to continue without it");
                }
                problem = Optional.of(e.getMessage());
            }
            if (problem.isEmpty()) {
                chosen.add(provider);
            } else if (fallback == ProviderFallback.FAIL) {
                throw new ModelLoadException(headline(provider, problem.get()) + "execution provider "
                        + provider.name() + " (requested as '" + name + "') is unavailable: " + problem.get()
                        + ". Set the backend option provider_fallback=warn to continue without it");
            } else {
                LOG.warn(
                        "execution provider {} is unavailable, falling back to the next one: {}",
                        provider.name(),
                        problem.get());
            }
        }
        ExecutionProviders result = new ExecutionProviders(chosen, deviceId, cuda);
        LOG.debug("execution providers: {}", result.describe());
        return result;
    }

    /**
     * What the user must read first, ahead of the runtime's own words (which follow Dawn's and the Vulkan loader's
     * lines on stderr): WebGPU that finds no adapter means no GPU driver it can use.
     *
     * @param provider the provider that is unavailable
     * @param problem the runtime's reason
     * @return a leading clause, or empty
     */
    static String headline(OrtProvider provider, String problem) {
        String lower = problem.toLowerCase(java.util.Locale.ROOT);
        if (provider == OrtProvider.WEBGPU && lower.contains("adapter")) {
            return "no WebGPU adapter (no GPU, or no driver WebGPU can use: Vulkan on Linux, Metal on macOS, D3D12 on"
                    + " Windows): ";
        }
        return "";
    }

    /**
     * @throws CudaUnavailableException when CUDA is asked for and a library it links is missing, or a one-node graph
     *     does not run on the device
     */
    private static Optional<String> probe(OrtProvider provider, int deviceId, CudaSettings cuda) {
        EnumSet<OrtProvider> available = OrtEnvironment.getAvailableProviders();
        if (!available.contains(provider)) {
            return Optional.of("not built into the ONNX Runtime natives on the classpath (available: "
                    + available + ")"
                    + (provider == OrtProvider.CUDA || provider == OrtProvider.TENSOR_RT
                            ? "; CUDA needs the natives of com.microsoft.onnxruntime:onnxruntime_gpu: run `flux2"
                                    + " runtime install cuda` (loaded when the cuda provider is asked for before ONNX"
                                    + " Runtime initialises), or depend on that artifact instead of onnxruntime"
                            : "")
                    + (provider == OrtProvider.WEBGPU
                            ? "; WebGPU needs the WebGPU runtime: run `flux2 runtime install webgpu` (it is then"
                                    + " loaded when the webgpu provider is asked for before ONNX Runtime initialises)"
                            : "")
                    + "; ONNX Runtime runs on " + OrtNativeLibrary.describeLoaded());
        }
        SharedEnvironment.get();
        if (provider == OrtProvider.CUDA && !OrtNativeLibrary.loadedByName()) {
            // Before ONNX Runtime loads the CUDA provider: its own failure would be a bare "Failed to load shared
            // library". A library the user named (ort_library) may link other CUDA versions: not checked.
            CudaLibraries.check();
        }
        DeviceGate gate = DeviceGate.of(List.of(provider));
        if (gate.serialises()) {
            // Enabling a device provider (even failing to, with no adapter) makes ONNX Runtime's release of the
            // environment at JVM exit crash: it is not released (docs/gpu.md, "No crash at exit").
            OrtNativeLibrary.keepEnvironmentAtExit();
        }
        try (SessionOptions options = new SessionOptions()) {
            // WebGPU creates its device here: nothing else may run on it meanwhile.
            gate.call(() -> {
                ExecutionProviders.enable(provider, deviceId, cuda, options);
                return null;
            });
            if (provider == OrtProvider.CUDA) {
                // A GPU that is missing, a driver too old or a bad device_id shows only when a session runs: a
                // one-node graph now, rather than an obscure failure after the model's sessions were created.
                Optional<String> device = gate.call(() -> CudaProbe.run(SharedEnvironment.get(), options, deviceId));
                if (device.isPresent()) {
                    throw new CudaUnavailableException(device.get() + ".");
                }
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while waiting for the device");
        } catch (OrtException e) {
            return Optional.of("enabling it failed (" + e.getCode() + "): " + e.getMessage());
        } catch (ExecutionProviders.UnsupportedProviderException e) {
            return Optional.of(e.getMessage());
        }
    }
}
