package dev.flux2.onnx;

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
import dev.flux2.onnx.memory.MemoryDecision;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.session.ExecutionProviders;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.onnx.stage.VaeAttentionPlan;
import dev.flux2.onnx.stage.VaeAttentionSettings;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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
 * are created when a stage first runs, and kept per the {@link dev.flux2.api.MemoryPolicy} (default AUTO, resolved by {@code AutoMemoryPolicy}).
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
        VaeAttentionSettings attention = attentionSettings(options, bundleConfig, io);
        // The one decision whether a fused graph may run: the model info, the sessions opened ahead and every denoiser
        // session read it.
        FusedChoice fused = FusedChoice.of(options.fusedEnabled(), io);
        ModelInfo info = ModelInfoFactory.of(bundleConfig, fused);
        if (options.fusedEnabled() && io.fused().isPresent() && !fused.usable()) {
            LOG.warn(
                    "the bundle's fused transformer cannot be used, every generation will run per step: {}",
                    fused.reason());
        }
        // Loaded in the background (DJL, not ONNX Runtime): the sessions are assembled and graphs derived meanwhile.
        TokenizerLoad tokenizer = TokenizerLoad.start(
                bundleConfig.tokenizerDirectory(), bundleConfig.text().sequenceLength());
        try {
            BackendAssembly assembly = BackendAssembly.assemble(bundle, options, config.memoryPolicy());
            MemoryDecision memory = assembly.memory();
            LOG.debug("memory policy for {}: {}", config.modelDirectory(), memory.describe());
            ExecutionProviders providers = assembly.providers();
            StageResources resources = assembly.resources();
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

    /** The unified decoder has no attention graph: the settings then only matter for reporting. */
    private static VaeAttentionSettings attentionSettings(OnnxOptions options, BundleConfig bundle, BundleIo io) {
        if (io.splitDecoder().isEmpty()) {
            return new VaeAttentionSettings(
                    options.vaeAttention(),
                    options.vaeChunkSize() > 0 ? options.vaeChunkSize() : VaeAttentionPlan.DEFAULT_CHUNK_ROWS);
        }
        ModelEntry attn = bundle.requiredModel(GraphKeys.VAE_DECODER_ATTN_CHUNK);
        long fixed = io.splitDecoder().orElseThrow().attention().fixedChunkRows();
        VaeAttentionPlan.checkCompatible(options.vaeAttention(), options.vaeChunkSize(), fixed);
        int rows = options.vaeChunkSize() > 0
                ? options.vaeChunkSize()
                : (int) (fixed > 0 ? fixed : attn.settings().chunkSize().orElse(VaeAttentionPlan.DEFAULT_CHUNK_ROWS));
        return new VaeAttentionSettings(options.vaeAttention(), rows);
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
