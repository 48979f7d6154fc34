package dev.flux2.onnx;

import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.stage.AttentionSettings;
import dev.flux2.onnx.stage.OnnxDenoiserSession;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.onnx.stage.TextEncoderStage;
import dev.flux2.onnx.stage.VaeDecoderChain;
import dev.flux2.onnx.stage.VaeEncoderStage;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

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
    private final ModelInfo modelInfo;
    private final Qwen3PromptTokenizer tokenizer;
    private final SessionCache sessions;
    private final StageResources resources;
    private final TextEncoderStage textEncoder;
    private final VaeDecoderChain vaeDecoder;
    private final Optional<VaeEncoderStage> vaeEncoder;
    private final boolean fusedEnabled;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final AtomicBoolean closed = new AtomicBoolean();

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
        this.fusedEnabled = parts.fusedEnabled();
    }

    /**
     * What {@link OnnxBackendProvider} assembles.
     *
     * @param modelInfo identity and defaults
     * @param tokenizer the prompt tokenizer
     * @param resources environment, sessions, config and checked graphs
     * @param attention VAE attention mode and chunk size
     * @param fusedEnabled whether fused graphs may be used
     */
    record Parts(
            ModelInfo modelInfo,
            Qwen3PromptTokenizer tokenizer,
            StageResources resources,
            AttentionSettings attention,
            boolean fusedEnabled) {
        Parts {
            Objects.requireNonNull(modelInfo, "modelInfo");
            Objects.requireNonNull(tokenizer, "tokenizer");
            Objects.requireNonNull(resources, "resources");
            Objects.requireNonNull(attention, "attention");
        }
    }

    @Override
    public ModelInfo modelInfo() {
        return call("modelInfo", () -> modelInfo);
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
        return call("openDenoiser", () -> new OnnxDenoiserSession(resources, setup, context, fusedEnabled));
    }

    @Override
    public PixelTensor decodeLatent(LatentGrid latent, StageContext context) {
        return call("decodeLatent", () -> vaeDecoder.decode(latent, context));
    }

    /** @return the number of sessions this backend holds open (resident, or leased by a running stage) */
    public int openSessions() {
        return sessions.openSessions();
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
