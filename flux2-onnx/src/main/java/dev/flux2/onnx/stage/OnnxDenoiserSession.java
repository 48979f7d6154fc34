package dev.flux2.onnx.stage;

import dev.flux2.api.PipelineClosedException;
import dev.flux2.onnx.bundle.FusedChoice;
import dev.flux2.onnx.session.SessionSpec;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.FusedSupport;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The transformer bound to one generation. The per-step tensors and session are created on the first
 * {@link #predictVelocity} (a fused run never needs them) and released by {@link #close()}.
 * Not thread-safe: one generation uses it.
 */
public final class OnnxDenoiserSession implements DenoiserSession {
    private final StageResources resources;
    private final DenoiserSetup setup;
    private final StageContext context;
    private final FusedDenoiser fused;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable afterTransformerOpened;
    private PerStepDenoiser perStep;

    /**
     * @param resources the backend's resources
     * @param setup the generation's token layout
     * @param context the generation's context
     * @param fused the backend's decision whether a fused graph may run
     */
    public OnnxDenoiserSession(StageResources resources, DenoiserSetup setup, StageContext context, FusedChoice fused) {
        this(resources, setup, context, fused, () -> {});
    }

    /**
     * @param resources the backend's resources
     * @param setup the generation's token layout
     * @param context the generation's context
     * @param fused the backend's decision whether a fused graph may run
     * @param afterTransformerOpened run once, after the per-step transformer's session is open (the backend opens
     *     the VAE decoder ahead from there)
     */
    public OnnxDenoiserSession(
            StageResources resources,
            DenoiserSetup setup,
            StageContext context,
            FusedChoice fused,
            Runnable afterTransformerOpened) {
        this.afterTransformerOpened = afterTransformerOpened;
        int textLength = resources.config().text().sequenceLength();
        if (setup.textIds().length != textLength * 4) {
            throw new IllegalArgumentException("text ids must hold text_seq_len·4 = " + (textLength * 4)
                    + " values, got " + setup.textIds().length);
        }
        this.resources = resources;
        this.setup = setup;
        this.context = context;
        this.fused = new FusedDenoiser(resources, setup, context, fused);
    }

    @Override
    public void predictVelocity(DenoiseStep step, float[] latentTokens, TextEmbedding text, float[] velocityOut) {
        checkOpen(step.label());
        boolean first = perStep == null;
        if (first) {
            perStep = new PerStepDenoiser(resources, setup, context);
        }
        perStep.predict(step, latentTokens, text, velocityOut);
        if (first) {
            afterTransformerOpened.run();
        }
    }

    /**
     * @param resources the backend's resources
     * @param tokens N + M image tokens
     * @return the spec of the per-step transformer's session for that many tokens (what the first step acquires)
     */
    public static SessionSpec perStepSpec(StageResources resources, int tokens) {
        return PerStepDenoiser.spec(resources, tokens);
    }

    @Override
    public FusedSupport fusedSupport(int steps) {
        return fused.support(steps);
    }

    @Override
    public void denoiseFused(float[] sigmas, float[] latentTokens, TextEmbedding text) {
        checkOpen("fused denoising");
        fused.denoise(sigmas, latentTokens, text);
    }

    private void checkOpen(String where) {
        if (closed.get()) {
            throw new PipelineClosedException("transformer " + where + ": the denoiser session has been closed");
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true) && perStep != null) {
            perStep.close();
            perStep = null;
        }
    }
}
