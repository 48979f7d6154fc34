package dev.flux2.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.derived.DerivationPlan;
import dev.flux2.onnx.derived.DerivedGraph;
import dev.flux2.onnx.derived.DerivedGraphStore;
import dev.flux2.onnx.memory.AutoMemoryPolicy;
import dev.flux2.onnx.memory.MemoryDecision;
import dev.flux2.onnx.memory.MemorySnapshot;
import dev.flux2.onnx.memory.SessionFootprint;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.ProviderFallback;
import dev.flux2.onnx.options.ProviderNames;
import dev.flux2.onnx.runtime.GlobalThreadPool;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import dev.flux2.onnx.runtime.RuntimeLibraryException;
import dev.flux2.onnx.runtime.WebGpuRuntime;
import dev.flux2.onnx.session.ExecutionProviders;
import dev.flux2.onnx.session.ProviderSelector;
import dev.flux2.onnx.session.SequentialBudget;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.stage.SessionSpecs;
import dev.flux2.onnx.stage.StageResources;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where the backend's sessions for a bundle are assembled from its options: the native library and
 * environment, the execution providers, the derived graphs ({@code DerivationPlan}), the memory policy, the session
 * factory, cache and specs, and the stage resources. {@link OnnxBackendProvider#open} and every benchmark that
 * opens sessions (flux2-bench's {@code StageHarness}, {@code SessionOpenCost}, {@code MemoryProbe}) go through it, so
 * that benchmarks measure what users run. Immutable; the caller closes {@link #sessions()} (through the backend or
 * the harness).
 */
public final class BackendAssembly {
    private static final Logger LOG = LoggerFactory.getLogger(BackendAssembly.class);

    private final OrtEnvironment environment;
    private final ExecutionProviders providers;
    private final MemoryDecision memory;
    private final Map<String, DerivedGraph> derivedGraphs;
    private final SessionFactory sessionFactory;
    private final SessionSpecs specs;
    private final SessionCache sessions;
    private final StageResources resources;

    private BackendAssembly(OnnxBundle bundle, OnnxOptions options, MemoryPolicy policy, Map<String, String> extra) {
        BundleConfig config = bundle.config();
        BundleIo io = bundle.io();
        // The native library is chosen before anything initialises ONNX Runtime (the provider checks do).
        this.environment = environment(options);
        this.providers = ProviderSelector.select(options.providers(), options.providerFallback(), options.deviceId());
        SessionFootprint footprint = SessionFootprint.of(config, io);
        this.memory = AutoMemoryPolicy.decide(policy, footprint, MemorySnapshot.current());
        Map<String, String> entries = new HashMap<>();
        if (!options.allowSpinning()) {
            entries.put("session.intra_op.allow_spinning", "0");
        }
        entries.putAll(extra);
        this.sessionFactory = new SessionFactory(environment, providers, options.threads(), entries);
        this.derivedGraphs = DerivationPlan.of(options, providers.providers())
                .derive(
                        config.usedModelKeys(),
                        io::signature,
                        new DerivedGraphStore(DerivedGraphStore.defaultCacheRoot(), true));
        this.specs = new SessionSpecs(config, io, options.pinDimensions(), options.optimizationLevel(), derivedGraphs);
        this.sessions = new SessionCache(
                sessionFactory,
                memory.policy(),
                new SequentialBudget(
                        footprint.graphs().stream()
                                .map(SessionFootprint.GraphWeights::totalBytes)
                                .toList(),
                        () -> MemorySnapshot.current().availableForSessionsBytes(),
                        AutoMemoryPolicy.WORKING_MEMORY_BYTES));
        this.resources = new StageResources(environment, sessions, config, io, specs);
    }

    /**
     * @param bundle the bundle, loaded and checked
     * @param options the backend options
     * @param policy the memory policy asked for ({@link MemoryPolicy#AUTO} is resolved here)
     * @return the assembly; nothing is opened yet (sessions are created when a stage first runs)
     * @throws dev.flux2.api.ModelLoadException when a derived graph cannot be derived, or a provider is unavailable
     *     under {@code provider_fallback=fail}
     */
    public static BackendAssembly assemble(OnnxBundle bundle, OnnxOptions options, MemoryPolicy policy) {
        return assemble(bundle, options, policy, Map.of());
    }

    /**
     * Like {@link #assemble(OnnxBundle, OnnxOptions, MemoryPolicy)}, with session config entries added to those the
     * options set (the memory probe compares ONNX Runtime's arena settings).
     *
     * @param bundle the bundle, loaded and checked
     * @param options the backend options
     * @param policy the memory policy asked for
     * @param sessionConfig extra {@code SessionOptions} config entries
     * @return the assembly
     */
    public static BackendAssembly assemble(
            OnnxBundle bundle, OnnxOptions options, MemoryPolicy policy, Map<String, String> sessionConfig) {
        return new BackendAssembly(
                Objects.requireNonNull(bundle, "bundle"),
                Objects.requireNonNull(options, "options"),
                Objects.requireNonNull(policy, "policy"),
                Map.copyOf(sessionConfig));
    }

    /**
     * The environment on the library {@code ort_library}, {@code FLUX2_ORT_LIBRARY} or the {@code webgpu} provider
     * asks for. A missing WebGPU runtime fails the load, or under {@code provider_fallback=warn} is a warning (the
     * WebGPU provider is then unavailable and skipped).
     */
    private static OrtEnvironment environment(OnnxOptions options) {
        OrtNativeLibrary.Choice choice;
        try {
            choice = OrtNativeLibrary.choose(
                    options.ortLibrary(),
                    options.providers().stream().anyMatch(n -> ProviderNames.parse(n) == OrtProvider.WEBGPU),
                    WebGpuRuntime.defaultHome());
        } catch (RuntimeLibraryException e) {
            if (options.providerFallback() != ProviderFallback.WARN) {
                throw e;
            }
            LOG.warn("{}; continuing on the default ONNX Runtime library", e.getMessage());
            choice = OrtNativeLibrary.Choice.ANY;
        }
        return OrtNativeLibrary.environment(choice, new GlobalThreadPool(options.threads(), options.allowSpinning()));
    }

    /** @return the ONNX Runtime environment */
    public OrtEnvironment environment() {
        return environment;
    }

    /** @return the execution providers every session gets */
    public ExecutionProviders providers() {
        return providers;
    }

    /** @return the memory policy in effect and why */
    public MemoryDecision memory() {
        return memory;
    }

    /** @return the derived graphs opened instead of the bundle's, by config key */
    public Map<String, DerivedGraph> derivedGraphs() {
        return derivedGraphs;
    }

    /** @return the factory every session is created by */
    public SessionFactory sessionFactory() {
        return sessionFactory;
    }

    /** @return each graph's session spec (file, pinned dimensions, optimization level, derived graph) */
    public SessionSpecs specs() {
        return specs;
    }

    /** @return the session cache (the caller closes it) */
    public SessionCache sessions() {
        return sessions;
    }

    /** @return what the stages run with */
    public StageResources resources() {
        return resources;
    }
}
