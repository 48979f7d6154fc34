package dev.flux2.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.FusedChoice;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.LayoutResolver;
import dev.flux2.onnx.bundle.ModelEntry;
import dev.flux2.onnx.bundle.ModelInfoFactory;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.memory.AutoMemoryPolicy;
import dev.flux2.onnx.memory.DeviceMemory;
import dev.flux2.onnx.memory.MemoryDecision;
import dev.flux2.onnx.memory.MemorySnapshot;
import dev.flux2.onnx.memory.SessionFootprint;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.ProviderFallback;
import dev.flux2.onnx.options.ProviderNames;
import dev.flux2.onnx.runtime.CudaDevices;
import dev.flux2.onnx.runtime.GlobalThreadPool;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import dev.flux2.onnx.runtime.RuntimeLibraryException;
import dev.flux2.onnx.runtime.WebGpuRuntime;
import dev.flux2.onnx.session.ExecutionProviders;
import dev.flux2.onnx.session.ProviderSelector;
import dev.flux2.onnx.session.SequentialBudget;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.stage.AttentionPlan;
import dev.flux2.onnx.stage.AttentionSettings;
import dev.flux2.onnx.stage.SessionSpecs;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.onnx.tuning.CpuTuning;
import dev.flux2.onnx.tuning.TunedGraph;
import dev.flux2.onnx.tuning.TunedGraphStore;
import dev.flux2.onnx.weights.WeightForm;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ONNX Runtime backend ({@value #NAME}) for FLUX.2 [klein] ONNX exports: a folder whose parts (tokenizer, text
 * encoder, denoiser, VAE decoder, optional VAE encoder) are named by its {@code flux2-config.json} (the MarkShark2
 * layout) or found by their graphs' signatures (hlhc's export and others), possibly with parts taken from elsewhere
 * ({@link BackendConfig#components()}); docs/bundle-format.md §2 and §4.
 *
 * <p>{@link #open} checks everything that does not need weights in memory before returning: the config's fields,
 * every file and shard size, every graph's inputs and outputs (read from the graph headers, so the 2.5 GB shards
 * are not loaded), the options, the VAE attention settings, the execution providers and the tokenizer. Sessions
 * are created when a stage first runs, and kept per the {@link dev.flux2.api.MemoryPolicy} (default AUTO, resolved here by {@link AutoMemoryPolicy}).
 *
 * <p>Registered in {@code META-INF/services/dev.flux2.spi.Flux2BackendProvider}. Cheap to construct; thread-safe.
 */
public final class OnnxBackendProvider implements Flux2BackendProvider {
    /** The backend's name. */
    public static final String NAME = "onnx";

    private static final Logger LOG = LoggerFactory.getLogger(OnnxBackendProvider.class);

    /** Creates the provider (no native loading). */
    public OnnxBackendProvider() {
        // ServiceLoader needs a public no-argument constructor.
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @return true for a folder with {@code flux2-config.json} or with ONNX graphs (in it or a direct subfolder), and
     *     also for a folder in the gandamu custom WebGPU format, so that opening it reports the format as unsupported
     *     instead of "no backend found"
     */
    @Override
    public boolean canOpen(Path modelDirectory) {
        return LayoutResolver.looksLikeModel(modelDirectory);
    }

    @Override
    public Flux2Backend open(BackendConfig config) {
        OnnxOptions options = OnnxOptions.parse(config.options());
        OnnxBundle bundle = OnnxBundle.load(config.modelDirectory(), config.components());
        BundleConfig bundleConfig = bundle.config();
        BundleIo io = bundle.io();
        AttentionSettings attention = attentionSettings(options, bundleConfig, io);
        // The one decision whether a fused graph may run: the model info, the sessions opened ahead and every denoiser
        // session read it.
        FusedChoice fused = FusedChoice.of(options.fusedEnabled(), io);
        ModelInfo info = ModelInfoFactory.of(bundleConfig, fused);
        if (options.fusedEnabled() && io.fused().isPresent() && !fused.usable()) {
            LOG.warn(
                    "the bundle's fused transformer cannot be used, every generation will run per step: {}",
                    fused.reason());
        }
        // The native library is chosen before anything initialises ONNX Runtime (the provider checks do).
        OrtEnvironment env = environment(options);
        ExecutionProviders providers = ProviderSelector.select(
                options.providers(), options.providerFallback(), options.deviceId(), options.cuda());
        // Loaded in the background: the first generation's transformer session is created meanwhile.
        TokenizerLoad tokenizer = TokenizerLoad.start(
                bundleConfig.tokenizerDirectory(), bundleConfig.text().sequenceLength());
        try {
            SessionFootprint footprint = SessionFootprint.of(bundleConfig, io);
            MemoryDecision memory = memoryDecision(config.memoryPolicy(), footprint, providers, options);
            LOG.debug("memory policy for {}: {}", config.modelDirectory(), memory.describe());
            SessionCache sessions = new SessionCache(
                    new SessionFactory(
                            env,
                            providers,
                            options.threads(),
                            options.allowSpinning() ? Map.of() : Map.of("session.intra_op.allow_spinning", "0")),
                    memory.policy(),
                    new SequentialBudget(
                            footprint.graphs().stream()
                                    .map(SessionFootprint.GraphWeights::totalBytes)
                                    .toList(),
                            () -> MemorySnapshot.current().availableForSessionsBytes(),
                            AutoMemoryPolicy.WORKING_MEMORY_BYTES));
            StageResources resources = new StageResources(
                    env,
                    sessions,
                    bundleConfig,
                    io,
                    new SessionSpecs(
                            bundleConfig,
                            io,
                            options.pinDimensions(),
                            options.optimizationLevel(),
                            derivedGraphs(
                                    bundleConfig,
                                    io,
                                    CpuTuning.of(options.cpuTuned()),
                                    providers.fusesAttention(options.attention()),
                                    providers.weightForm(options.weights()))));
            LOG.debug(
                    "opened {} ({}, {}): memory policy {}, providers {}, fused {}, VAE decoder {}{}",
                    config.modelDirectory(),
                    info.variant(),
                    bundle.layout().name(),
                    memory.describe(),
                    providers.describe(),
                    fused.usable() ? io.fusedConvention() : "off (" + fused.reason() + ")",
                    String.join(" -> ", io.decoder().graphKeys()),
                    io.splitDecoder().isEmpty()
                            ? ""
                            : ", VAE attention " + attention.mode() + " with " + attention.chunkRows()
                                    + " rows per chunk");
            return new OnnxBackend(new OnnxBackend.Parts(info, tokenizer, resources, attention, fused));
        } catch (RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    /**
     * The environment on the library {@code ort_library}, {@code FLUX2_ORT_LIBRARY} or the {@code webgpu} or
     * {@code cuda} provider asks for. A missing WebGPU or CUDA runtime fails the load, or under
     * {@code provider_fallback=warn} is a warning (the provider is then unavailable and skipped).
     */
    private static OrtEnvironment environment(OnnxOptions options) {
        OrtNativeLibrary.Choice choice;
        try {
            choice = OrtNativeLibrary.choose(
                    options.ortLibrary(),
                    options.providers().stream().map(ProviderNames::parse).collect(Collectors.toSet()),
                    WebGpuRuntime.defaultHome());
        } catch (RuntimeLibraryException e) {
            if (options.providerFallback() != ProviderFallback.WARN) {
                // Only a requested provider's runtime fails here (ort_library is checked when it loads).
                throw new RuntimeLibraryException(
                        e.getMessage() + ". Set the backend option provider_fallback=warn to continue without it", e);
            }
            LOG.warn("{}; continuing on the default ONNX Runtime library", e.getMessage());
            choice = OrtNativeLibrary.Choice.ANY;
        }
        return OrtNativeLibrary.environment(choice, new GlobalThreadPool(options.threads(), options.allowSpinning()));
    }

    /**
     * AUTO decides by the device's free memory when the sessions run on CUDA (by {@code nvidia-smi}; by the host's
     * memory, said so, when the driver does not answer), else by the host's memory.
     */
    private static MemoryDecision memoryDecision(
            MemoryPolicy requested, SessionFootprint footprint, ExecutionProviders providers, OnnxOptions options) {
        if (requested == MemoryPolicy.AUTO
                && !providers.providers().isEmpty()
                && providers.providers().get(0) == OrtProvider.CUDA) {
            CudaDevices.Query query = CudaDevices.query();
            Optional<CudaDevices.Gpu> gpu = query.gpu(options.deviceId());
            if (gpu.isPresent()) {
                return AutoMemoryPolicy.decideOnDevice(
                        requested,
                        footprint,
                        new DeviceMemory(
                                "CUDA device " + options.deviceId() + " ("
                                        + gpu.get().name() + ")",
                                gpu.get().freeBytes(),
                                options.cuda().gpuMemLimit()));
            }
            MemoryDecision host = AutoMemoryPolicy.decide(requested, footprint, MemorySnapshot.current());
            return new MemoryDecision(
                    host.policy(),
                    host.requested(),
                    host.reason() + "; by the host's memory: the CUDA device's free memory is unknown ("
                            + query.problem().orElse("nvidia-smi lists no device " + options.deviceId()) + ")");
        }
        return AutoMemoryPolicy.decide(requested, footprint, MemorySnapshot.current());
    }

    /**
     * The derived graphs: with CPU tuning, the text encoder and transformer (the fused transformer too, when the bundle
     * has one), with fused attention when it is on; with fused attention alone, the transformers and the VAE decoder
     * graphs that have attention to fuse (the others run as they are). Derived now if no derived graph matches the
     * sources.
     */
    private static Map<String, TunedGraph> derivedGraphs(
            BundleConfig config,
            BundleIo io,
            Optional<CpuTuning> cpuTuning,
            boolean fusedAttention,
            WeightForm weights) {
        TunedGraphStore store = new TunedGraphStore(TunedGraphStore.defaultCacheRoot(), true);
        Map<String, TunedGraph> tuned = new LinkedHashMap<>();
        List<String> cpuKeys = List.of(GraphKeys.TEXT_ENCODER, GraphKeys.TRANSFORMER, GraphKeys.TRANSFORMER_FUSED);
        if (cpuTuning.isPresent()) {
            for (String key : cpuKeys) {
                if (config.usedModelKeys().contains(key)) {
                    CpuTuning t = cpuTuning
                            .get()
                            .withFusedAttention(fusedAttention)
                            .withWeights(transformer(key) ? weights : WeightForm.PACKED);
                    tuned.put(key, store.derive(key, io.signature(key), t));
                }
            }
        }
        // The text encoder's attention is masked (causal), which the fuser does not take: it is not looked at; its
        // weights are not dequantized either (one run per prompt, not measured).
        for (String key : List.of(
                GraphKeys.TRANSFORMER,
                GraphKeys.TRANSFORMER_FUSED,
                GraphKeys.VAE_DECODER_ATTN_CHUNK,
                GraphKeys.VAE_DECODER)) {
            CpuTuning t = new CpuTuning(false, false, fusedAttention, transformer(key) ? weights : WeightForm.PACKED);
            if (t.editsAnything()
                    && !tuned.containsKey(key)
                    && config.usedModelKeys().contains(key)) {
                store.deriveIfChanged(key, io.signature(key), t).ifPresent(g -> tuned.put(key, g));
            }
        }
        return tuned;
    }

    private static boolean transformer(String key) {
        return key.equals(GraphKeys.TRANSFORMER) || key.equals(GraphKeys.TRANSFORMER_FUSED);
    }

    /** The unified decoder has no attention graph: the settings then only matter for reporting. */
    private static AttentionSettings attentionSettings(OnnxOptions options, BundleConfig bundle, BundleIo io) {
        if (io.splitDecoder().isEmpty()) {
            return new AttentionSettings(
                    options.vaeAttention(),
                    options.vaeChunkSize() > 0 ? options.vaeChunkSize() : AttentionPlan.DEFAULT_CHUNK_ROWS);
        }
        ModelEntry attn = bundle.requiredModel(GraphKeys.VAE_DECODER_ATTN_CHUNK);
        long fixed = io.splitDecoder().orElseThrow().attention().fixedChunkRows();
        AttentionPlan.checkCompatible(options.vaeAttention(), options.vaeChunkSize(), fixed);
        int rows = options.vaeChunkSize() > 0
                ? options.vaeChunkSize()
                : (int) (fixed > 0 ? fixed : attn.settings().chunkSize().orElse(AttentionPlan.DEFAULT_CHUNK_ROWS));
        return new AttentionSettings(options.vaeAttention(), rows);
    }

    @Override
    public ModelSummary inspect(Path modelDirectory) {
        return inspect(modelDirectory, Map.of());
    }

    @Override
    public ModelSummary inspect(Path modelDirectory, Map<ModelRole, Path> components) {
        if (!Files.isDirectory(modelDirectory)) {
            throw new ModelLoadException("model directory " + modelDirectory.toAbsolutePath() + " does not exist");
        }
        return BundleInspector.inspect(modelDirectory, components);
    }

    @Override
    public ModelSummary inspect(Path modelDirectory, Map<ModelRole, Path> components, Map<String, Long> listedSizes) {
        if (!Files.isDirectory(modelDirectory)) {
            throw new ModelLoadException("model directory " + modelDirectory.toAbsolutePath() + " does not exist");
        }
        return BundleInspector.inspect(modelDirectory, components, listedSizes);
    }
}
