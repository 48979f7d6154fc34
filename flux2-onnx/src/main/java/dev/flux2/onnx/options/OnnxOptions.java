package dev.flux2.onnx.options;

import dev.flux2.api.InvalidRequestException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The ONNX backend's options, typed. Built with {@link #builder()} (validated in {@link Builder#build()}) or parsed
 * from the string map of {@code Flux2Pipeline.builder().backendOption(key, value)} by {@link #parse(Map)}, the one
 * place where those strings are read; {@link #asBackendOptions()} turns typed options into that map:
 *
 * <pre>{@code
 * OnnxOptions onnx = OnnxOptions.builder().threads(4).providers(List.of("cuda")).build();
 * Flux2Pipeline.Builder builder = Flux2Pipeline.builder().model(dir);
 * onnx.asBackendOptions().forEach(builder::backendOption);
 * }</pre>
 *
 * <p>An unknown key or a bad value is an {@link InvalidRequestException} naming the key, the value and what is
 * accepted (a bad option is the caller's mistake, not the bundle's). Values are trimmed; names are case-insensitive.
 * Immutable; equal when every option is.
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
 *   <tr><td>{@value #ATTENTION}</td><td>{@code auto} | {@code fused} | {@code graph} |
 *       {@code fused_fp16}</td><td>{@code fused} replaces the attention of the transformer and VAE decoder graphs
 *       with ONNX Runtime's fused {@code com.microsoft.MultiHeadAttention} (fp32) in a derived graph (stored like the
 *       CPU-tuned graphs); {@code fused_fp16} the same computing in fp16 (CUDA's fast form; ONNX Runtime's CPU has
 *       no fp16 kernel); {@code graph} runs the attention as exported; {@code auto} (default) fuses where measured
 *       faster and accurate: in fp16 when the first provider is CUDA, elsewhere it runs the graphs as exported
 *       (docs/fused-attention.md §8–9).</td></tr>
 *   <tr><td>{@value #WEIGHTS}</td><td>{@code auto} | {@code packed} | {@code dequantized} |
 *       {@code dequantized_fp16}</td><td>how the transformer's 4-bit block-16 weight products run ({@link
 *       WeightsMode}): {@code packed} as the bundle's {@code MatMulNBits}; {@code dequantized} as an in-graph
 *       {@code DequantizeLinear} of the same packed weights and an fp32 {@code MatMul}, {@code dequantized_fp16} an
 *       fp16 one (faster, less accurate on WebGPU), in a derived graph (stored like the CPU-tuned graphs; same weight
 *       values, no weight file written); {@code auto} (default) {@code dequantized} on WebGPU, {@code packed}
 *       elsewhere (docs/fused-attention.md §8).</td></tr>
 *   <tr><td>{@value #DEVICE_ID}</td><td>an integer ≥ 0</td><td>device index for CUDA, TensorRT, ROCm and DirectML.
 *       Default 0.</td></tr>
 *   <tr><td>{@value #GPU_MEM_LIMIT}</td><td>bytes, or with a binary unit ({@code 8g}, {@code 8GiB}, {@code 512m});
 *       0 or at least 1 MiB</td><td>the most device memory the CUDA provider's arena may hold (ONNX Runtime's
 *       {@code gpu_mem_limit}). Default 0: no limit. CUDA only.</td></tr>
 *   <tr><td>{@value #CUDNN_CONV_ALGO_SEARCH}</td><td>{@code exhaustive} | {@code heuristic} | {@code default}</td>
 *       <td>how cuDNN's convolution algorithms are chosen ({@link CudnnConvAlgoSearch}). Default {@code heuristic}
 *       (ONNX Runtime's is {@code exhaustive}: 1.0–1.6 s more for a fresh 1024² image on an H200, docs/performance.md). CUDA
 *       only.</td></tr>
 *   <tr><td>{@value #USE_TF32}</td><td>{@code true} | {@code false}</td><td>whether fp32 products may use TF32
 *       tensor cores. Default {@code true}, ONNX Runtime's (measured faster). CUDA only.</td></tr>
 * </table>
 *
 * <p>The CUDA options need {@code cuda} among the providers: set without it, {@code build()} refuses them.
 */
public final class OnnxOptions {
    /** Option key: threads per inference call. */
    public static final String THREADS = "threads";
    /** Option key: execution providers in order of preference. */
    public static final String PROVIDERS = "providers";
    /** Option key: what to do with an unavailable provider. */
    public static final String PROVIDER_FALLBACK = "provider_fallback";
    /** Option key: VAE attention mode. */
    public static final String VAE_ATTENTION = "vae_attention";
    /** Option key: VAE attention chunk rows. */
    public static final String VAE_CHUNK_SIZE = "vae_chunk_size";
    /** Option key: fused multi-step transformer. */
    public static final String FUSED = "fused";
    /** Option key: graph optimization level. */
    public static final String GRAPH_OPTIMIZATION_LEVEL = "graph_optimization_level";
    /** Option key: pin symbolic dimensions. */
    public static final String PIN_DIMENSIONS = "pin_dimensions";
    /** Option key: accelerator device index. */
    public static final String DEVICE_ID = "device_id";
    /** Option key: derived CPU-tuned graphs. */
    public static final String CPU_TUNED = "cpu_tuned";
    /** Option key: intra-op thread spinning. */
    public static final String ALLOW_SPINNING = "allow_spinning";
    /** Option key: the ONNX Runtime native library. */
    public static final String ORT_LIBRARY = "ort_library";
    /** Option key: fused attention. */
    public static final String ATTENTION = "attention";
    /** Option key: block-16 weight products packed or dequantized in the graph. */
    public static final String WEIGHTS = "weights";
    /** Option key: the CUDA provider's device memory limit. */
    public static final String GPU_MEM_LIMIT = "gpu_mem_limit";
    /** Option key: cuDNN's convolution algorithm search. */
    public static final String CUDNN_CONV_ALGO_SEARCH = "cudnn_conv_algo_search";
    /** Option key: TF32 tensor cores for fp32 products on CUDA. */
    public static final String USE_TF32 = "use_tf32";

    /** Every key, in the order the documentation lists them. */
    public static final List<String> KEYS = List.of(
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
            WEIGHTS,
            GPU_MEM_LIMIT,
            CUDNN_CONV_ALGO_SEARCH,
            USE_TF32);

    private static final OnnxOptions DEFAULTS = builder().build();

    private final int threads;
    private final List<String> providers;
    private final ProviderFallback providerFallback;
    private final VaeAttentionMode vaeAttention;
    private final int vaeChunkSize;
    private final boolean fusedEnabled;
    private final Optional<OptimizationLevel> optimizationLevel;
    private final boolean pinDimensions;
    private final int deviceId;
    private final CpuTuned cpuTuned;
    private final boolean allowSpinning;
    private final Optional<String> ortLibrary;
    private final AttentionMode attention;
    private final WeightsMode weights;
    private final CudaSettings cuda;

    private OnnxOptions(Builder b) {
        threads = b.threads;
        providers = List.copyOf(b.providers);
        providerFallback = b.providerFallback;
        vaeAttention = b.vaeAttention;
        vaeChunkSize = b.vaeChunkSize;
        fusedEnabled = b.fusedEnabled;
        optimizationLevel = b.optimizationLevel;
        pinDimensions = b.pinDimensions;
        deviceId = b.deviceId;
        cpuTuned = b.cpuTuned;
        allowSpinning = b.allowSpinning;
        ortLibrary = b.ortLibrary;
        attention = b.attention;
        weights = b.weights;
        cuda = new CudaSettings(b.gpuMemLimit, b.convAlgoSearch, b.useTf32);
    }

    /** @return a builder holding the defaults: runtime threads, CPU only, fail on an unavailable provider, … */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the defaults: runtime threads, CPU only, fail on an unavailable provider, automatic VAE attention */
    public static OnnxOptions defaults() {
        return DEFAULTS;
    }

    /**
     * Reads the string options of {@code Flux2Pipeline.Builder.backendOption(key, value)}: the one place where they
     * are read.
     *
     * @param options the backend options, keys as in the table above
     * @return the parsed options
     * @throws InvalidRequestException for an unknown key or a bad value, naming the key, the value and what is
     *     accepted
     */
    public static OnnxOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            checkKey(key);
        }
        Builder b = builder();
        options.forEach(b::option);
        return b.build();
    }

    /**
     * The options that differ from the defaults, as {@code Flux2Pipeline.Builder.backendOption(key, value)} takes
     * them: the one place where typed options become strings. {@code parse(asBackendOptions())} equals these
     * options.
     *
     * @return key to value, in the order of {@link #KEYS}; empty for the defaults
     */
    public Map<String, String> asBackendOptions() {
        Map<String, String> m = new LinkedHashMap<>();
        if (threads != 0) {
            m.put(THREADS, Integer.toString(threads));
        }
        if (!providers.isEmpty()) {
            m.put(PROVIDERS, String.join(",", providers));
        }
        if (providerFallback != ProviderFallback.FAIL) {
            m.put(PROVIDER_FALLBACK, lower(providerFallback));
        }
        if (vaeAttention != VaeAttentionMode.AUTO) {
            m.put(VAE_ATTENTION, lower(vaeAttention));
        }
        if (vaeChunkSize != 0) {
            m.put(VAE_CHUNK_SIZE, Integer.toString(vaeChunkSize));
        }
        if (!fusedEnabled) {
            m.put(FUSED, "off");
        }
        optimizationLevel.ifPresent(l -> m.put(GRAPH_OPTIMIZATION_LEVEL, lower(l)));
        if (!pinDimensions) {
            m.put(PIN_DIMENSIONS, "false");
        }
        if (deviceId != 0) {
            m.put(DEVICE_ID, Integer.toString(deviceId));
        }
        if (cpuTuned != CpuTuned.OFF) {
            m.put(CPU_TUNED, cpuTuned.value());
        }
        if (!allowSpinning) {
            m.put(ALLOW_SPINNING, "false");
        }
        ortLibrary.ifPresent(l -> m.put(ORT_LIBRARY, l));
        if (attention != AttentionMode.AUTO) {
            m.put(ATTENTION, lower(attention));
        }
        if (weights != WeightsMode.AUTO) {
            m.put(WEIGHTS, lower(weights));
        }
        if (cuda.gpuMemLimit() != CudaSettings.DEFAULTS.gpuMemLimit()) {
            m.put(GPU_MEM_LIMIT, Long.toString(cuda.gpuMemLimit()));
        }
        if (cuda.convAlgoSearch() != CudaSettings.DEFAULTS.convAlgoSearch()) {
            m.put(CUDNN_CONV_ALGO_SEARCH, lower(cuda.convAlgoSearch()));
        }
        if (cuda.useTf32() != CudaSettings.DEFAULTS.useTf32()) {
            m.put(USE_TF32, Boolean.toString(cuda.useTf32()));
        }
        return Collections.unmodifiableMap(m);
    }

    /** @return threads per inference call, 0 for the runtime's default */
    public int threads() {
        return threads;
    }

    /** @return requested execution provider names in order of preference, trimmed (empty: CPU only) */
    public List<String> providers() {
        return providers;
    }

    /** @return what to do with a provider that cannot be enabled */
    public ProviderFallback providerFallback() {
        return providerFallback;
    }

    /** @return how the VAE decoder computes attention */
    public VaeAttentionMode vaeAttention() {
        return vaeAttention;
    }

    /** @return query rows per VAE attention chunk, 0 for the bundle's */
    public int vaeChunkSize() {
        return vaeChunkSize;
    }

    /** @return whether a fused multi-step transformer may be used */
    public boolean fusedEnabled() {
        return fusedEnabled;
    }

    /** @return the level forced on every graph, if set */
    public Optional<OptimizationLevel> optimizationLevel() {
        return optimizationLevel;
    }

    /** @return whether symbolic dimensions are pinned per call */
    public boolean pinDimensions() {
        return pinDimensions;
    }

    /** @return the accelerator device index */
    public int deviceId() {
        return deviceId;
    }

    /** @return the edits of the derived CPU-tuned graphs, {@link CpuTuned#OFF} for the graphs as exported */
    public CpuTuned cpuTuned() {
        return cpuTuned;
    }

    /** @return whether ONNX Runtime's idle intra-op threads spin */
    public boolean allowSpinning() {
        return allowSpinning;
    }

    /** @return the ONNX Runtime native library to load, if named */
    public Optional<String> ortLibrary() {
        return ortLibrary;
    }

    /** @return whether attention runs fused */
    public AttentionMode attention() {
        return attention;
    }

    /** @return how the transformer's block-16 weight products run */
    public WeightsMode weights() {
        return weights;
    }

    /** @return the CUDA provider's settings (its device is {@link #deviceId()}) */
    public CudaSettings cuda() {
        return cuda;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OnnxOptions other && asBackendOptions().equals(other.asBackendOptions());
    }

    @Override
    public int hashCode() {
        return asBackendOptions().hashCode();
    }

    /** @return the options that differ from the defaults, for logs */
    @Override
    public String toString() {
        return "OnnxOptions" + asBackendOptions();
    }

    /** Builds {@link OnnxOptions}; every option starts at its default. Not thread-safe. */
    public static final class Builder {
        private int threads;
        private List<String> providers = List.of();
        private ProviderFallback providerFallback = ProviderFallback.FAIL;
        private VaeAttentionMode vaeAttention = VaeAttentionMode.AUTO;
        private int vaeChunkSize;
        private boolean fusedEnabled = true;
        private Optional<OptimizationLevel> optimizationLevel = Optional.empty();
        private boolean pinDimensions = true;
        private int deviceId;
        private CpuTuned cpuTuned = CpuTuned.OFF;
        private boolean allowSpinning = true;
        private Optional<String> ortLibrary = Optional.empty();
        private AttentionMode attention = AttentionMode.AUTO;
        private WeightsMode weights = WeightsMode.AUTO;
        private long gpuMemLimit = CudaSettings.DEFAULTS.gpuMemLimit();
        private CudnnConvAlgoSearch convAlgoSearch = CudaSettings.DEFAULTS.convAlgoSearch();
        private boolean useTf32 = CudaSettings.DEFAULTS.useTf32();

        private Builder() {}

        /**
         * @param threads {@value #THREADS}: threads per inference call, 0 (default) for ONNX Runtime's choice
         * @return this builder
         */
        public Builder threads(int threads) {
            this.threads = threads;
            return this;
        }

        /**
         * @param providers {@value #PROVIDERS}: execution provider names in order of preference ({@code cuda},
         *     {@code webgpu}, …, see {@link ProviderNames}), trimmed and lower-cased; CPU is always the last resort.
         *     Default: CPU only
         * @return this builder
         */
        public Builder providers(List<String> providers) {
            List<String> names = new ArrayList<>();
            for (String name : providers) {
                names.add(Objects.requireNonNull(name, PROVIDERS).trim().toLowerCase(Locale.ROOT));
            }
            this.providers = List.copyOf(names);
            return this;
        }

        /**
         * @param fallback {@value #PROVIDER_FALLBACK}: fail the load (default) or warn when a provider cannot be
         *     enabled
         * @return this builder
         */
        public Builder providerFallback(ProviderFallback fallback) {
            this.providerFallback = Objects.requireNonNull(fallback, PROVIDER_FALLBACK);
            return this;
        }

        /**
         * @param mode {@value #VAE_ATTENTION}: how the split VAE decoder computes attention (default auto)
         * @return this builder
         */
        public Builder vaeAttention(VaeAttentionMode mode) {
            this.vaeAttention = Objects.requireNonNull(mode, VAE_ATTENTION);
            return this;
        }

        /**
         * @param rows {@value #VAE_CHUNK_SIZE}: query rows per VAE attention chunk, 0 (default) for the bundle's
         * @return this builder
         */
        public Builder vaeChunkSize(int rows) {
            this.vaeChunkSize = rows;
            return this;
        }

        /**
         * @param enabled {@value #FUSED}: whether a bundle's fused multi-step transformer may run (default true,
         *     the option's {@code auto}; false is {@code off})
         * @return this builder
         */
        public Builder fused(boolean enabled) {
            this.fusedEnabled = enabled;
            return this;
        }

        /**
         * @param level {@value #GRAPH_OPTIMIZATION_LEVEL}: the level forced on every graph, null for the config's
         *     (default)
         * @return this builder
         */
        public Builder graphOptimizationLevel(OptimizationLevel level) {
            this.optimizationLevel = Optional.ofNullable(level);
            return this;
        }

        /**
         * @param pin {@value #PIN_DIMENSIONS}: whether sessions are specialised per resolution (default true)
         * @return this builder
         */
        public Builder pinDimensions(boolean pin) {
            this.pinDimensions = pin;
            return this;
        }

        /**
         * @param deviceId {@value #DEVICE_ID}: device index for CUDA, TensorRT, ROCm and DirectML (default 0)
         * @return this builder
         */
        public Builder deviceId(int deviceId) {
            this.deviceId = deviceId;
            return this;
        }

        /**
         * @param tuned {@value #CPU_TUNED}: the derived CPU-tuned graphs' edits (default off)
         * @return this builder
         */
        public Builder cpuTuned(CpuTuned tuned) {
            this.cpuTuned = Objects.requireNonNull(tuned, CPU_TUNED);
            return this;
        }

        /**
         * @param spin {@value #ALLOW_SPINNING}: whether idle intra-op threads spin (default true)
         * @return this builder
         */
        public Builder allowSpinning(boolean spin) {
            this.allowSpinning = spin;
            return this;
        }

        /**
         * @param library {@value #ORT_LIBRARY}: the ONNX Runtime native library to load, null for none (default)
         * @return this builder
         */
        public Builder ortLibrary(String library) {
            this.ortLibrary = Optional.ofNullable(library);
            return this;
        }

        /**
         * @param mode {@value #ATTENTION}: whether attention runs fused (default auto)
         * @return this builder
         */
        public Builder attention(AttentionMode mode) {
            this.attention = Objects.requireNonNull(mode, ATTENTION);
            return this;
        }

        /**
         * @param mode {@value #WEIGHTS}: how the transformer's block-16 weight products run (default auto)
         * @return this builder
         */
        public Builder weights(WeightsMode mode) {
            this.weights = Objects.requireNonNull(mode, WEIGHTS);
            return this;
        }

        /**
         * @param bytes {@value #GPU_MEM_LIMIT}: the most device memory the CUDA provider's arena may hold, 0 (default)
         *     for no limit, else at least 1 MiB
         * @return this builder
         */
        public Builder gpuMemLimit(long bytes) {
            this.gpuMemLimit = bytes;
            return this;
        }

        /**
         * @param search {@value #CUDNN_CONV_ALGO_SEARCH}: how cuDNN's convolution algorithms are chosen (default
         *     heuristic)
         * @return this builder
         */
        public Builder cudnnConvAlgoSearch(CudnnConvAlgoSearch search) {
            this.convAlgoSearch = Objects.requireNonNull(search, CUDNN_CONV_ALGO_SEARCH);
            return this;
        }

        /**
         * @param on {@value #USE_TF32}: whether fp32 products may use TF32 tensor cores on CUDA (default true)
         * @return this builder
         */
        public Builder useTf32(boolean on) {
            this.useTf32 = on;
            return this;
        }

        /**
         * Sets one option from its string form, as {@code Flux2Pipeline.Builder.backendOption(key, value)} takes it:
         * the one place where option strings are read ({@link OnnxOptions#parse(Map)} calls it for each entry).
         *
         * @param key one of {@link #KEYS}
         * @param value the value, trimmed; names are case-insensitive
         * @return this builder
         * @throws InvalidRequestException for an unknown key or a bad value, naming the key, the value and what is
         *     accepted
         */
        public Builder option(String key, String value) {
            checkKey(key);
            Objects.requireNonNull(value, key);
            String v = value.trim().toLowerCase(Locale.ROOT);
            return switch (key) {
                case THREADS -> threads(nonNegativeInt(key, value, "an integer >= 0 (0 = ONNX Runtime's default)"));
                case PROVIDERS -> providers(providerNames(value));
                case PROVIDER_FALLBACK -> providerFallback(choice(key, value, ProviderFallback.values()));
                case VAE_ATTENTION -> vaeAttention(choice(key, value, VaeAttentionMode.values()));
                case VAE_CHUNK_SIZE ->
                    vaeChunkSize(nonNegativeInt(key, value, "an integer >= 0 (0 = the bundle's chunk_size)"));
                case FUSED ->
                    fused(
                            switch (v) {
                                case "auto" -> true;
                                case "off" -> false;
                                default -> throw bad(key, value, "auto or off");
                            });
                case GRAPH_OPTIMIZATION_LEVEL -> {
                    try {
                        yield graphOptimizationLevel(OptimizationLevel.parse(value));
                    } catch (IllegalArgumentException e) {
                        throw new InvalidRequestException("backend option " + key + ": " + e.getMessage(), e);
                    }
                }
                case PIN_DIMENSIONS -> pinDimensions(bool(key, value));
                case DEVICE_ID -> deviceId(nonNegativeInt(key, value, "an integer >= 0"));
                case CPU_TUNED -> cpuTuned(cpuTunedValue(value));
                case ALLOW_SPINNING -> allowSpinning(bool(key, value));
                case ORT_LIBRARY -> ortLibrary(value.trim().isEmpty() ? null : value.trim());
                case ATTENTION -> attention(choice(key, value, AttentionMode.values()));
                case WEIGHTS -> weights(choice(key, value, WeightsMode.values()));
                case GPU_MEM_LIMIT -> gpuMemLimit(MemorySize.parse(key, value));
                case CUDNN_CONV_ALGO_SEARCH -> cudnnConvAlgoSearch(choice(key, value, CudnnConvAlgoSearch.values()));
                case USE_TF32 -> useTf32(bool(key, value));
                default -> throw new IllegalStateException("a key of KEYS without a parser: " + key);
            };
        }

        /**
         * @return the options
         * @throws InvalidRequestException for a negative count, a blank provider name or library path, naming the
         *     option, the value and what is accepted; for an unknown provider name
         */
        public OnnxOptions build() {
            nonNegative(THREADS, threads, "an integer >= 0 (0 = ONNX Runtime's default)");
            nonNegative(VAE_CHUNK_SIZE, vaeChunkSize, "an integer >= 0 (0 = the bundle's chunk_size)");
            nonNegative(DEVICE_ID, deviceId, "an integer >= 0");
            for (String name : providers) {
                if (name.isEmpty() || name.contains(",")) {
                    throw bad(PROVIDERS, String.valueOf(name), "provider names, none blank and none with a comma");
                }
                try {
                    ProviderNames.parse(name);
                } catch (InvalidRequestException e) {
                    throw new InvalidRequestException(
                            "backend option " + PROVIDERS + " '" + String.join(",", providers) + "': " + e.getMessage(),
                            e);
                }
            }
            if (ortLibrary.isPresent() && ortLibrary.get().isBlank()) {
                throw bad(ORT_LIBRARY, ortLibrary.get(), "a path");
            }
            checkCuda();
            return new OnnxOptions(this);
        }

        /** A CUDA option without the cuda provider would be silently ignored: refused instead. */
        private void checkCuda() {
            if (gpuMemLimit < 0 || (gpuMemLimit > 0 && gpuMemLimit < MemorySize.MIB)) {
                throw bad(
                        GPU_MEM_LIMIT,
                        Long.toString(gpuMemLimit),
                        "0 (no limit) or at least 1 MiB, in bytes or with a unit (8g, 8GiB, 512m)");
            }
            List<String> set = new ArrayList<>();
            if (gpuMemLimit != CudaSettings.DEFAULTS.gpuMemLimit()) {
                set.add(GPU_MEM_LIMIT);
            }
            if (convAlgoSearch != CudaSettings.DEFAULTS.convAlgoSearch()) {
                set.add(CUDNN_CONV_ALGO_SEARCH);
            }
            if (useTf32 != CudaSettings.DEFAULTS.useTf32()) {
                set.add(USE_TF32);
            }
            boolean cudaAsked = providers.stream().anyMatch(n -> {
                try {
                    return ProviderNames.parse(n) == ai.onnxruntime.OrtProvider.CUDA;
                } catch (InvalidRequestException e) {
                    return false;
                }
            });
            if (!set.isEmpty() && !cudaAsked) {
                throw new InvalidRequestException("backend option" + (set.size() > 1 ? "s " : " ")
                        + String.join(", ", set) + " appl" + (set.size() > 1 ? "y" : "ies")
                        + " to the cuda provider only, but " + PROVIDERS + " is "
                        + (providers.isEmpty() ? "cpu (the default)" : "'" + String.join(",", providers) + "'")
                        + ": add cuda to " + PROVIDERS + " (--provider cuda)");
            }
        }

        private static void nonNegative(String key, int value, String expected) {
            if (value < 0) {
                throw bad(key, Integer.toString(value), expected);
            }
        }
    }

    private static void checkKey(String key) {
        if (!KEYS.contains(key)) {
            throw new InvalidRequestException(
                    "unknown backend option '" + key + "' for the onnx backend; known options: " + KEYS);
        }
    }

    /** Names are checked here, so that a typo fails as an option error before anything is loaded. */
    private static List<String> providerNames(String value) {
        List<String> names = new ArrayList<>();
        for (String name : value.split(",")) {
            if (name.isBlank()) {
                continue;
            }
            try {
                ProviderNames.parse(name);
            } catch (InvalidRequestException e) {
                throw new InvalidRequestException(
                        "backend option " + PROVIDERS + " '" + value + "': " + e.getMessage(), e);
            }
            names.add(name.trim().toLowerCase(Locale.ROOT));
        }
        return names;
    }

    private static CpuTuned cpuTunedValue(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (CpuTuned t : CpuTuned.values()) {
            if (t.value().equals(v)) {
                return t;
            }
        }
        throw bad(CPU_TUNED, value, "false, true, fp32 or acc0");
    }

    private static <E extends Enum<E>> E choice(String key, String value, E[] values) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        List<String> names = new ArrayList<>();
        for (E e : values) {
            if (lower(e).equals(v)) {
                return e;
            }
            names.add(lower(e));
        }
        String expected = String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
        throw bad(key, value, expected);
    }

    private static boolean bool(String key, String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, value, "true or false");
        };
    }

    private static int nonNegativeInt(String key, String value, String expected) {
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw bad(key, value, expected);
        }
        if (parsed < 0) {
            throw bad(key, value, expected);
        }
        return parsed;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    private static InvalidRequestException bad(String key, String value, String expected) {
        return new InvalidRequestException("backend option " + key + " must be " + expected + ", got '" + value + "'");
    }
}
