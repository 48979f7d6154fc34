package dev.flux2.onnx;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.attention.AttentionMode;
import dev.flux2.onnx.session.OptimizationLevel;
import dev.flux2.onnx.session.ProviderFallback;
import dev.flux2.onnx.session.ProviderSelector;
import dev.flux2.onnx.stage.VaeAttentionMode;
import dev.flux2.onnx.tuning.CpuTuning;
import dev.flux2.onnx.weights.WeightsMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The ONNX backend's options, parsed once from the string map set with
 * {@code Flux2Pipeline.builder().backendOption(key, value)}. An unknown key or a bad value is an
 * {@link InvalidRequestException} naming the key, the value and what is accepted (a bad option is the caller's
 * mistake, not the bundle's). Values are trimmed; names are case-insensitive.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>Key</th><th>Values</th><th>Effect</th></tr>
 *   <tr><td>{@value #THREADS}</td><td>an integer ≥ 0</td><td>threads per inference call; 0 (default) lets ONNX
 *       Runtime decide.</td></tr>
 *   <tr><td>{@value #PROVIDERS}</td><td>comma-separated provider names ({@code cuda}, {@code coreml},
 *       {@code tensorrt}, …)</td><td>execution providers to try, in order of preference; CPU is always the last
 *       resort. Default: CPU only.</td></tr>
 *   <tr><td>{@value #PROVIDER_FALLBACK}</td><td>{@code fail} | {@code warn}</td><td>{@code fail} (default): a
 *       requested provider that cannot be enabled fails {@code build()}; {@code warn}: it is skipped with a
 *       warning.</td></tr>
 *   <tr><td>{@value #VAE_ATTENTION}</td><td>{@code auto} | {@code chunked} | {@code whole}</td><td>how the split VAE
 *       decoder computes attention ({@link VaeAttentionMode}). Default {@code auto}.</td></tr>
 *   <tr><td>{@value #VAE_CHUNK_SIZE}</td><td>an integer ≥ 0</td><td>query rows per VAE attention chunk; 0 (default)
 *       uses the bundle's {@code chunk_size}.</td></tr>
 *   <tr><td>{@value #FUSED}</td><td>{@code auto} | {@code off}</td><td>{@code auto} (default) runs a bundle's fused
 *       multi-step transformer when the schedule allows it; {@code off} always runs per step (the backend then
 *       reports no fused graph in its model info).</td></tr>
 *   <tr><td>{@value #GRAPH_OPTIMIZATION_LEVEL}</td><td>{@code all} | {@code layout} | {@code extended} |
 *       {@code basic} | {@code disabled} (or ONNX Runtime's Python and Java names)</td><td>ONNX Runtime graph
 *       optimizations for every graph, overriding a per-graph {@code graph_optimization_level} in the config.
 *       Default: the config's, else {@code all}.</td></tr>
 *   <tr><td>{@value #PIN_DIMENSIONS}</td><td>{@code true} | {@code false}</td><td>{@code true} (default) pins the
 *       graphs' symbolic dimensions to each call's sizes, so sessions are specialised per resolution;
 *       {@code false} lets one session serve every resolution (useful with RESIDENT and varying sizes).</td></tr>
 *   <tr><td>{@value #CPU_TUNED}</td><td>{@code false} | {@code true} | {@code fp32} | {@code acc0}</td><td>derive,
 *       once, a CPU variant of the text encoder and transformer graphs (stored beside the bundle or in the cache
 *       folder, referencing the original shards) and run it: {@code true} with {@code MatMulNBits} accuracy level 0
 *       and fp32 activations, {@code fp32} with fp32 activations only (the accuracy level kept), {@code acc0} with
 *       accuracy level 0 only. Default {@code false}.</td></tr>
 *   <tr><td>{@value #ALLOW_SPINNING}</td><td>{@code true} | {@code false}</td><td>ONNX Runtime's
 *       {@code session.intra_op.allow_spinning}: whether idle intra-op threads spin waiting for work (lower latency
 *       between operators, but CPU burnt while waiting). Default {@code true}, ONNX Runtime's default.</td></tr>
 *   <tr><td>{@value #ORT_LIBRARY}</td><td>a path</td><td>the ONNX Runtime native library to load (any build of
 *       the Java binding's version: a CUDA 13 build, say), before ONNX Runtime initialises; it wins over
 *       {@code FLUX2_ORT_LIBRARY} and over the installed WebGPU runtime that the {@code webgpu} provider loads. The
 *       library is chosen once per JVM (docs/gpu.md). Default: none.</td></tr>
 *   <tr><td>{@value #ATTENTION}</td><td>{@code auto} | {@code fused} | {@code graph}</td><td>{@code fused}
 *       replaces the attention of the transformer and VAE decoder graphs with ONNX Runtime's fused
 *       {@code com.microsoft.MultiHeadAttention} in a derived graph (stored like the CPU-tuned graphs);
 *       {@code graph} runs the attention as exported; {@code auto} (default) fuses where measured faster and accurate,
 *       which is nowhere yet (docs/fused-attention.md §5): it runs the graphs as exported.</td></tr>
 *   <tr><td>{@value #WEIGHTS}</td><td>{@code auto} | {@code packed} | {@code dequantized} |
 *       {@code dequantized_fp16}</td><td>how the transformer's 4-bit block-16 weight products run: {@code packed}
 *       as the bundle's {@code MatMulNBits}; {@code dequantized} as an in-graph {@code DequantizeLinear} of the same
 *       packed weights and an fp32 {@code MatMul}, {@code dequantized_fp16} an fp16 one (faster, less accurate on
 *       WebGPU), in a derived graph (stored like the CPU-tuned graphs; same weight values, no weight file written;
 *       per run transient device memory for the largest dequantized weight, twice); {@code auto} (default)
 *       {@code dequantized} on WebGPU, {@code packed} elsewhere (docs/fused-attention.md §8).</td></tr>
 *   <tr><td>{@value #DEVICE_ID}</td><td>an integer ≥ 0</td><td>device index for CUDA, TensorRT, ROCm and DirectML.
 *       Default 0.</td></tr>
 * </table>
 *
 * @param threads threads per inference call, 0 for the runtime's default
 * @param providers requested execution provider names in order of preference, lower case (empty: CPU only)
 * @param providerFallback what to do with a provider that cannot be enabled
 * @param vaeAttention how the VAE decoder computes attention
 * @param vaeChunkSize query rows per VAE attention chunk, 0 for the bundle's
 * @param fusedEnabled whether a fused multi-step transformer may be used
 * @param optimizationLevel the level forced on every graph, if set
 * @param pinDimensions whether symbolic dimensions are pinned per call
 * @param deviceId the accelerator device index
 * @param cpuTuning the edits of the derived CPU-tuned text encoder and transformer graphs, if they are used
 * @param allowSpinning whether ONNX Runtime's idle intra-op threads spin
 * @param ortLibrary the ONNX Runtime native library to load, if named
 * @param attention whether attention runs fused
 * @param weights how the block-16 weight products run
 */
record OnnxOptions(
        int threads,
        List<String> providers,
        ProviderFallback providerFallback,
        VaeAttentionMode vaeAttention,
        int vaeChunkSize,
        boolean fusedEnabled,
        Optional<OptimizationLevel> optimizationLevel,
        boolean pinDimensions,
        int deviceId,
        Optional<CpuTuning> cpuTuning,
        boolean allowSpinning,
        Optional<String> ortLibrary,
        AttentionMode attention,
        WeightsMode weights) {
    /** Option key: threads per inference call. */
    static final String THREADS = "threads";
    /** Option key: execution providers in order of preference. */
    static final String PROVIDERS = "providers";
    /** Option key: what to do with an unavailable provider. */
    static final String PROVIDER_FALLBACK = "provider_fallback";
    /** Option key: VAE attention mode. */
    static final String VAE_ATTENTION = "vae_attention";
    /** Option key: VAE attention chunk rows. */
    static final String VAE_CHUNK_SIZE = "vae_chunk_size";
    /** Option key: fused multi-step transformer. */
    static final String FUSED = "fused";
    /** Option key: graph optimization level. */
    static final String GRAPH_OPTIMIZATION_LEVEL = "graph_optimization_level";
    /** Option key: pin symbolic dimensions. */
    static final String PIN_DIMENSIONS = "pin_dimensions";
    /** Option key: accelerator device index. */
    static final String DEVICE_ID = "device_id";
    /** Option key: derived CPU-tuned graphs. */
    static final String CPU_TUNED = "cpu_tuned";
    /** Option key: intra-op thread spinning. */
    static final String ALLOW_SPINNING = "allow_spinning";
    /** Option key: the ONNX Runtime native library. */
    static final String ORT_LIBRARY = "ort_library";
    /** Option key: fused attention. */
    static final String ATTENTION = "attention";
    /** Option key: block-16 weight products packed or dequantized in the graph. */
    static final String WEIGHTS = "weights";

    /** Every key, in the order the documentation lists them. */
    static final List<String> KEYS = List.of(
            THREADS,
            PROVIDERS,
            PROVIDER_FALLBACK,
            VAE_ATTENTION,
            VAE_CHUNK_SIZE,
            FUSED,
            GRAPH_OPTIMIZATION_LEVEL,
            PIN_DIMENSIONS,
            DEVICE_ID,
            CPU_TUNED,
            ALLOW_SPINNING,
            ORT_LIBRARY,
            ATTENTION,
            WEIGHTS);

    /** Validates and copies. */
    OnnxOptions {
        providers = List.copyOf(providers);
        Objects.requireNonNull(providerFallback, "providerFallback");
        Objects.requireNonNull(vaeAttention, "vaeAttention");
        Objects.requireNonNull(optimizationLevel, "optimizationLevel");
        Objects.requireNonNull(cpuTuning, "cpuTuning");
        Objects.requireNonNull(ortLibrary, "ortLibrary");
        Objects.requireNonNull(attention, "attention");
        Objects.requireNonNull(weights, "weights");
        if (threads < 0 || vaeChunkSize < 0 || deviceId < 0) {
            throw new IllegalArgumentException("threads, vaeChunkSize and deviceId must be >= 0, got " + threads + ", "
                    + vaeChunkSize + ", " + deviceId);
        }
    }

    /** @return the defaults: runtime threads, CPU only, fail on an unavailable provider, automatic VAE attention */
    static OnnxOptions defaults() {
        return parse(Map.of());
    }

    /**
     * @param options the builder's backend options
     * @return the parsed options
     * @throws InvalidRequestException for an unknown key or a bad value, naming the key, the value and what is
     *     accepted
     */
    static OnnxOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new InvalidRequestException(
                        "unknown backend option '" + key + "' for the onnx backend; known options: " + KEYS);
            }
        }
        Optional<OptimizationLevel> level = Optional.empty();
        if (options.containsKey(GRAPH_OPTIMIZATION_LEVEL)) {
            try {
                level = Optional.of(OptimizationLevel.parse(options.get(GRAPH_OPTIMIZATION_LEVEL)));
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException(
                        "backend option " + GRAPH_OPTIMIZATION_LEVEL + ": " + e.getMessage(), e);
            }
        }
        return new OnnxOptions(
                nonNegativeInt(options, THREADS, "an integer >= 0 (0 = ONNX Runtime's default)"),
                providers(options),
                switch (value(options, PROVIDER_FALLBACK, "fail")) {
                    case "fail" -> ProviderFallback.FAIL;
                    case "warn" -> ProviderFallback.WARN;
                    default -> throw bad(PROVIDER_FALLBACK, options.get(PROVIDER_FALLBACK), "fail or warn");
                },
                switch (value(options, VAE_ATTENTION, "auto")) {
                    case "auto" -> VaeAttentionMode.AUTO;
                    case "chunked" -> VaeAttentionMode.CHUNKED;
                    case "whole" -> VaeAttentionMode.WHOLE;
                    default -> throw bad(VAE_ATTENTION, options.get(VAE_ATTENTION), "auto, chunked or whole");
                },
                nonNegativeInt(options, VAE_CHUNK_SIZE, "an integer >= 0 (0 = the bundle's chunk_size)"),
                switch (value(options, FUSED, "auto")) {
                    case "auto" -> true;
                    case "off" -> false;
                    default -> throw bad(FUSED, options.get(FUSED), "auto or off");
                },
                level,
                switch (value(options, PIN_DIMENSIONS, "true")) {
                    case "true" -> true;
                    case "false" -> false;
                    default -> throw bad(PIN_DIMENSIONS, options.get(PIN_DIMENSIONS), "true or false");
                },
                nonNegativeInt(options, DEVICE_ID, "an integer >= 0"),
                switch (value(options, CPU_TUNED, "false")) {
                    case "true" -> Optional.of(CpuTuning.FULL);
                    case "fp32" -> Optional.of(new CpuTuning(false, true));
                    case "acc0" -> Optional.of(new CpuTuning(true, false));
                    case "false" -> Optional.<CpuTuning>empty();
                    default -> throw bad(CPU_TUNED, options.get(CPU_TUNED), "false, true, fp32 or acc0");
                },
                switch (value(options, ALLOW_SPINNING, "true")) {
                    case "true" -> true;
                    case "false" -> false;
                    default -> throw bad(ALLOW_SPINNING, options.get(ALLOW_SPINNING), "true or false");
                },
                Optional.ofNullable(options.get(ORT_LIBRARY)).map(String::trim).filter(v -> !v.isEmpty()),
                switch (value(options, ATTENTION, "auto")) {
                    case "auto" -> AttentionMode.AUTO;
                    case "fused" -> AttentionMode.FUSED;
                    case "graph" -> AttentionMode.GRAPH;
                    default -> throw bad(ATTENTION, options.get(ATTENTION), "auto, fused or graph");
                },
                switch (value(options, WEIGHTS, "auto")) {
                    case "auto" -> WeightsMode.AUTO;
                    case "packed" -> WeightsMode.PACKED;
                    case "dequantized" -> WeightsMode.DEQUANTIZED;
                    case "dequantized_fp16" -> WeightsMode.DEQUANTIZED_FP16;
                    default ->
                        throw bad(WEIGHTS, options.get(WEIGHTS), "auto, packed, dequantized or dequantized_fp16");
                });
    }

    /** @return whether the WebGPU provider is among the requested ones */
    boolean webGpuRequested() {
        return providers.stream().anyMatch(n -> ProviderSelector.parse(n) == ai.onnxruntime.OrtProvider.WEBGPU);
    }

    /** Names are checked here, so that a typo fails as an option error before anything is loaded. */
    private static List<String> providers(Map<String, String> options) {
        List<String> names = new ArrayList<>();
        for (String name : value(options, PROVIDERS, "").split(",")) {
            if (name.isBlank()) {
                continue;
            }
            try {
                ProviderSelector.parse(name);
            } catch (InvalidRequestException e) {
                throw new InvalidRequestException(
                        "backend option " + PROVIDERS + " '" + options.get(PROVIDERS) + "': " + e.getMessage(), e);
            }
            names.add(name.trim());
        }
        return names;
    }

    private static int nonNegativeInt(Map<String, String> options, String key, String expected) {
        int parsed;
        try {
            parsed = Integer.parseInt(value(options, key, "0"));
        } catch (NumberFormatException e) {
            throw bad(key, options.get(key), expected);
        }
        if (parsed < 0) {
            throw bad(key, options.get(key), expected);
        }
        return parsed;
    }

    private static String value(Map<String, String> options, String key, String defaultValue) {
        return options.getOrDefault(key, defaultValue).trim().toLowerCase(Locale.ROOT);
    }

    private static InvalidRequestException bad(String key, String value, String expected) {
        return new InvalidRequestException("backend option " + key + " must be " + expected + ", got '" + value + "'");
    }
}
