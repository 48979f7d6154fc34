package dev.flux2.onnx;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.hub.ModelNames;
import dev.flux2.onnx.bundle.FusedChoice;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.session.SessionSpec;
import dev.flux2.onnx.stage.OnnxDenoiserSession;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.onnx.stage.TextEncoderStage;
import dev.flux2.onnx.stage.VaeAttentionSettings;
import dev.flux2.onnx.stage.VaeDecoderChain;
import dev.flux2.onnx.stage.VaeEncoderStage;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.GenerationPlan;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.Preparation;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ONNX Runtime backend of one opened bundle: delegates each SPI call to its stage and owns the tokenizer and
 * the session cache.
 *
 * <p>Thread-safe: calls from several generating threads run concurrently (ONNX Runtime allows concurrent runs on
 * one session). {@link #close()} first closes every session, which waits for the run in flight and makes any later
 * run of a generation still going fail with {@link PipelineClosedException}, then waits for the SPI calls in
 * progress to return before closing the tokenizer. Every call after close throws {@link PipelineClosedException}.
 */
final class OnnxBackend implements Flux2Backend {
    private static final Logger LOG = LoggerFactory.getLogger(OnnxBackend.class);

    private final ModelInfo modelInfo;
    private final TokenizerLoad tokenizer;
    private final SessionCache sessions;
    private final StageResources resources;
    private final TextEncoderStage textEncoder;
    private final VaeDecoderChain vaeDecoder;
    private final Optional<VaeEncoderStage> vaeEncoder;
    private final FusedChoice fused;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The prefetches of each generation in progress, by its context; guarded by itself. */
    private final Map<StageContext, GenerationPrefetches> generations = new IdentityHashMap<>();

    /**
     * @param parts the opened parts; ownership of the tokenizer and the session cache passes to this backend
     */
    OnnxBackend(Parts parts) {
        this.modelInfo = parts.modelInfo();
        this.tokenizer = parts.tokenizer();
        this.resources = parts.resources();
        this.sessions = resources.sessions();
        this.textEncoder = new TextEncoderStage(resources);
        this.vaeDecoder = new VaeDecoderChain(resources, parts.attention());
        this.vaeEncoder = resources
                .io()
                .vaeEncoder()
                .filter(e -> modelInfo.supportsImageInput())
                .map(io -> new VaeEncoderStage(resources, io));
        this.fused = parts.fused();
    }

    /**
     * What {@link OnnxBackendProvider} assembles.
     *
     * @param modelInfo identity and defaults
     * @param tokenizer the prompt tokenizer
     * @param resources environment, sessions, config and checked graphs
     * @param attention VAE attention mode and chunk size
     * @param fused whether a fused graph may run, decided once when the bundle is opened
     */
    record Parts(
            ModelInfo modelInfo,
            TokenizerLoad tokenizer,
            StageResources resources,
            VaeAttentionSettings attention,
            FusedChoice fused) {
        Parts {
            Objects.requireNonNull(modelInfo, "modelInfo");
            Objects.requireNonNull(tokenizer, "tokenizer");
            Objects.requireNonNull(resources, "resources");
            Objects.requireNonNull(attention, "attention");
            Objects.requireNonNull(fused, "fused");
        }
    }

    @Override
    public ModelInfo modelInfo() {
        return call("modelInfo", () -> modelInfo);
    }

    /** Any export of the same FLUX.2 VAE fits (its latents are the decoder's); the plain ONNX export ships one. */
    @Override
    public Optional<String> vaeEncoderSource() {
        return Optional.of("the vae_encoder of " + ModelNames.HLHC_MODEL);
    }

    /**
     * Opens the per-step transformer's session in the background (text-to-image without a fused graph, when the
     * session cache's policy and memory allow it), and, once the transformer runs, the VAE decoder's first graph.
     * Whatever the generation does not take is closed when the returned preparation is closed.
     */
    @Override
    public Preparation prepare(GenerationPlan plan, StageContext context) {
        return call("prepare", () -> {
            if (sessions.policy() == MemoryPolicy.SEQUENTIAL) {
                // The tokenizer's load peaks at a few hundred MiB (docs/performance.md, memory settings item 4):
                // under SEQUENTIAL it must not coincide with the transformer's creation, which sets the peak.
                tokenizer.awaitLoaded();
            }
            GenerationPrefetches prefetches = new GenerationPrefetches(context);
            if (!plan.referenceImages() && !(plan.fusedCandidate() && fused.usable())) {
                // The text encoder is created while the transformer's creation runs: both peaks count.
                prefetches.start(
                        "the transformer",
                        () -> OnnxDenoiserSession.perStepSpec(resources, plan.gridWidth() * plan.gridHeight()),
                        resources.specs().weightBytes(GraphKeys.TEXT_ENCODER));
            }
            prefetches.decoderGrid(plan.gridWidth(), plan.gridHeight());
            synchronized (generations) {
                generations.put(context, prefetches);
            }
            return prefetches;
        });
    }

    @Override
    public TokenizedPrompt tokenize(String prompt) {
        return call("tokenize", () -> tokenizer.tokenize(prompt));
    }

    @Override
    public TextEmbedding encodeText(TokenizedPrompt tokens, StageContext context) {
        return call("encodeText", () -> textEncoder.encode(tokens, context));
    }

    @Override
    public LatentGrid encodeImage(PixelTensor image, StageContext context) {
        return call(
                "encodeImage",
                () -> vaeEncoder
                        .orElseThrow(() -> new ModelLoadException("this bundle ("
                                + modelInfo.variant() + ") cannot encode images: "
                                + (resources.config().vaeEncoder().isEmpty()
                                        ? "it has no vae_encoder graph (a VAE encoder can be taken from elsewhere"
                                                + " as the vae-encoder component)"
                                        : "its config sets supports_img2img to false")
                                + ", so init and reference images are not supported"))
                        .encode(image, context));
    }

    @Override
    public DenoiserSession openDenoiser(DenoiserSetup setup, StageContext context) {
        return call("openDenoiser", () -> {
            GenerationPrefetches prefetches;
            synchronized (generations) {
                prefetches = generations.get(context);
            }
            Runnable afterTransformer = prefetches == null ? () -> {} : prefetches::startDecoder;
            return new OnnxDenoiserSession(resources, setup, context, fused, afterTransformer);
        });
    }

    @Override
    public PixelTensor decodeLatent(LatentGrid latent, StageContext context) {
        return call("decodeLatent", () -> vaeDecoder.decode(latent, context));
    }

    /** @return the number of sessions this backend holds open (resident, or leased by a running stage) */
    public int openSessions() {
        return sessions.openSessions();
    }

    /**
     * The sessions opened ahead for one generation. Closing it discards what the generation did not take. A
     * failure to compute a spec (a size the graph does not accept) opens nothing: the stage reports it.
     */
    private final class GenerationPrefetches implements Preparation {
        private final StageContext context;
        private final List<SessionCache.Prefetch> handles = new ArrayList<>();
        private int gridWidth;
        private int gridHeight;
        private boolean decoderStarted;
        private boolean done;

        GenerationPrefetches(StageContext context) {
            this.context = context;
        }

        void decoderGrid(int width, int height) {
            this.gridWidth = width;
            this.gridHeight = height;
        }

        void start(String what, Supplier<SessionSpec> spec, long concurrentWeightBytes) {
            SessionCache.Prefetch handle;
            try {
                handle = sessions.prefetch(spec.get(), concurrentWeightBytes);
            } catch (RuntimeException e) {
                LOG.debug("not opening {} ahead: {}", what, e.getMessage());
                return;
            }
            boolean discard;
            synchronized (this) {
                discard = done;
                if (!done) {
                    handles.add(handle);
                }
            }
            if (discard) {
                handle.close();
            }
        }

        void startDecoder() {
            synchronized (this) {
                if (decoderStarted || done || context.isCancelled()) {
                    return;
                }
                decoderStarted = true;
            }
            start("the VAE decoder", () -> VaeDecoderChain.firstSpec(resources, gridWidth, gridHeight), 0);
        }

        @Override
        public void close() {
            List<SessionCache.Prefetch> toClose;
            synchronized (this) {
                done = true;
                toClose = new ArrayList<>(handles);
                handles.clear();
            }
            synchronized (generations) {
                generations.remove(context, this);
            }
            toClose.forEach(SessionCache.Prefetch::close);
        }
    }

    private <T> T call(String what, Supplier<T> body) {
        lock.readLock().lock();
        try {
            if (closed.get()) {
                throw new PipelineClosedException(what + " called after the ONNX backend was closed");
            }
            return body.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            sessions.close();
        } finally {
            lock.writeLock().lock();
            try {
                tokenizer.close();
            } finally {
                lock.writeLock().unlock();
            }
        }
    }
}
