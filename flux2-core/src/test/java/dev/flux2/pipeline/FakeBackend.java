package dev.flux2.pipeline;

import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.Stage;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.FusedSupport;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A pure-Java backend over {@link FakeModel} that records every call the engine makes, checks the SPI contract
 * (lengths, use after close) and can be scripted to block, fail or observe cancellation.
 */
public final class FakeBackend implements Flux2Backend {
    /** Runtime nanos every fake runtime call reports, so tests can check the sum. */
    public static final long NANOS_PER_CALL = 1_000;
    /** The reason the fake's fused graph gives when it is unavailable. */
    public static final String FUSED_UNAVAILABLE_REASON = "fake fused graph lacks the timestep_0..3 inputs";

    /** One transformer call. */
    public record VelocityCall(
            FakeSession session, DenoiseStep step, float[] latent, FakeText text, float[] velocity) {}

    /** One fused call. */
    public record FusedCall(float[] sigmas, float[] latent, FakeText text) {}

    private final FakeModel model;

    public final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    public final List<FakeText> texts = Collections.synchronizedList(new ArrayList<>());
    public final List<FakeSession> sessions = Collections.synchronizedList(new ArrayList<>());
    public final List<VelocityCall> velocityCalls = Collections.synchronizedList(new ArrayList<>());
    public final List<FusedCall> fusedCalls = Collections.synchronizedList(new ArrayList<>());
    public final List<PixelTensor> encodedPixels = Collections.synchronizedList(new ArrayList<>());
    public final List<LatentGrid> encodedLatents = Collections.synchronizedList(new ArrayList<>());
    public final List<LatentGrid> decodedLatents = Collections.synchronizedList(new ArrayList<>());
    public final AtomicInteger closeCount = new AtomicInteger();
    public final AtomicInteger abortHookRuns = new AtomicInteger();
    public final AtomicInteger inFlight = new AtomicInteger();
    public final AtomicLong reportedRuntimeNanos = new AtomicLong();
    public volatile boolean closedWhileBusy;

    /** predictVelocity at this step index blocks until the generation is cancelled, then fails like ORT does. */
    public volatile int blockAtStep = -1;
    /** Counted down when a call starts blocking. */
    public final CountDownLatch blocked = new CountDownLatch(1);
    /** Thrown by predictVelocity when set. */
    public volatile RuntimeException failOnPredict;
    /** predictVelocity at this step index writes a NaN into its output (poisoned weights). */
    public volatile int poisonPredictAtStep = -1;
    /** decodeLatent writes an infinity into its output when set. */
    public volatile boolean poisonDecode;
    /** Thrown by decodeLatent when set. */
    public volatile RuntimeException failOnDecode;

    /** The backend option that turns the fused graph off, as the ONNX backend takes it. */
    public static final Map<String, String> FUSED_OFF = Map.of("fused", "off");

    public FakeBackend(FakeModel model) {
        this(model, Map.of());
    }

    /**
     * @param model the fake model
     * @param options backend options; like the ONNX backend, {@code fused=off} makes the backend report no fused
     *     graph in its model info
     */
    public FakeBackend(FakeModel model, Map<String, String> options) {
        this.model = "off".equals(options.get("fused")) ? model.withFusedSteps(0) : model;
    }

    public FakeModel model() {
        return model;
    }

    @Override
    public ModelInfo modelInfo() {
        return model.info();
    }

    /** As the ONNX backend names one: the engine's refusal of image input must carry the backend's source. */
    @Override
    public java.util.Optional<String> vaeEncoderSource() {
        return java.util.Optional.of("the vae_encoder of hlhc/FLUX.2-klein-4B-onnx");
    }

    @Override
    public TokenizedPrompt tokenize(String prompt) {
        calls.add("tokenize:" + prompt);
        return model.tokenize(prompt);
    }

    @Override
    public TextEmbedding encodeText(TokenizedPrompt tokens, StageContext context) {
        return runtimeCall(context, () -> {
            calls.add("encodeText");
            FakeText text = new FakeText(tokens);
            texts.add(text);
            return text;
        });
    }

    @Override
    public LatentGrid encodeImage(PixelTensor image, StageContext context) {
        if (!model.imageInput()) {
            throw new ModelLoadException("fake model has no VAE encoder");
        }
        return runtimeCall(context, () -> {
            calls.add("encodeImage");
            encodedPixels.add(new PixelTensor(image.data().clone(), image.width(), image.height()));
            LatentGrid latent = FakeModel.encode(image);
            encodedLatents.add(new LatentGrid(latent.data().clone(), 128, latent.width(), latent.height()));
            return latent;
        });
    }

    @Override
    public DenoiserSession openDenoiser(DenoiserSetup setup, StageContext context) {
        calls.add("openDenoiser");
        FakeSession session = new FakeSession(setup, context);
        sessions.add(session);
        return session;
    }

    @Override
    public PixelTensor decodeLatent(LatentGrid latent, StageContext context) {
        if (failOnDecode != null) {
            throw failOnDecode;
        }
        return runtimeCall(context, () -> {
            calls.add("decode");
            if (latent.channels() != 128) {
                throw new IllegalArgumentException("decode expects 128 channels, got " + latent.channels());
            }
            decodedLatents.add(new LatentGrid(latent.data().clone(), 128, latent.width(), latent.height()));
            context.advance(Stage.VAE_DECODE, 1, 2);
            context.advance(Stage.VAE_DECODE, 2, 2);
            PixelTensor pixels = FakeModel.decode(latent);
            if (poisonDecode) {
                pixels.data()[1] = Float.POSITIVE_INFINITY;
            }
            return pixels;
        });
    }

    @Override
    public void close() {
        closeCount.incrementAndGet();
        calls.add("close");
        boolean openHandles = texts.stream().anyMatch(t -> t.closes.get() == 0)
                || sessions.stream().anyMatch(s -> s.closes.get() == 0);
        if (inFlight.get() > 0 || openHandles) {
            closedWhileBusy = true;
        }
    }

    private <T> T runtimeCall(StageContext context, Supplier<T> body) {
        inFlight.incrementAndGet();
        try {
            return body.get();
        } finally {
            context.recordRuntimeNanos(NANOS_PER_CALL);
            reportedRuntimeNanos.addAndGet(NANOS_PER_CALL);
            inFlight.decrementAndGet();
        }
    }

    /** The fake text context. */
    public final class FakeText implements TextEmbedding {
        private final TokenizedPrompt tokens;
        public final float scalar;
        public final AtomicInteger closes = new AtomicInteger();

        FakeText(TokenizedPrompt tokens) {
            this.tokens = tokens;
            this.scalar = FakeModel.textScalar(tokens);
        }

        @Override
        public TokenizedPrompt tokens() {
            return tokens;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    /** The fake denoiser session; registers a session-long abort hook like a runtime with RunOptions would. */
    public final class FakeSession implements DenoiserSession {
        public final DenoiserSetup setup;
        private final StageContext context;
        private final AutoCloseable abortRegistration;
        public final AtomicInteger closes = new AtomicInteger();

        FakeSession(DenoiserSetup setup, StageContext context) {
            this.setup = setup;
            this.context = context;
            this.abortRegistration = context.onCancel(abortHookRuns::incrementAndGet);
        }

        @Override
        public void predictVelocity(DenoiseStep step, float[] latentTokens, TextEmbedding text, float[] velocityOut) {
            checkOpen(text);
            int values = setup.noiseTokens() * 128;
            if (latentTokens.length != values || velocityOut.length != values) {
                throw new IllegalArgumentException("expected " + values + " latent and velocity values (N tokens"
                        + " only), got " + latentTokens.length + " and " + velocityOut.length);
            }
            if (failOnPredict != null) {
                throw failOnPredict;
            }
            runtimeCall(context, () -> {
                calls.add("predict");
                if (step.index() == blockAtStep) {
                    blockUntilAborted();
                }
                FakeModel.velocity(
                        latentTokens,
                        step.sigma(),
                        setup.positionIds(),
                        setup.referenceTokens(),
                        ((FakeText) text).scalar,
                        velocityOut);
                if (step.index() == poisonPredictAtStep) {
                    velocityOut[velocityOut.length / 2] = Float.NaN;
                }
                velocityCalls.add(
                        new VelocityCall(this, step, latentTokens.clone(), (FakeText) text, velocityOut.clone()));
                return null;
            });
        }

        private void blockUntilAborted() {
            CountDownLatch aborted = new CountDownLatch(1);
            AutoCloseable hook = context.onCancel(aborted::countDown);
            try {
                blocked.countDown();
                if (!aborted.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("fake call was never aborted");
                }
                hook.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            throw new IllegalStateException("Exiting due to terminate flag being set to true.");
        }

        @Override
        public FusedSupport fusedSupport(int steps) {
            if (model.fusedAvailable() && steps == model.fusedSteps()) {
                return FusedSupport.available("fake-convention");
            }
            return FusedSupport.unavailable(FUSED_UNAVAILABLE_REASON);
        }

        @Override
        public void denoiseFused(float[] sigmas, float[] latentTokens, TextEmbedding text) {
            checkOpen(text);
            if (!fusedSupport(sigmas.length - 1).available()) {
                throw new IllegalStateException("denoiseFused called although fusedSupport said no");
            }
            runtimeCall(context, () -> {
                calls.add("fused");
                fusedCalls.add(new FusedCall(sigmas.clone(), latentTokens.clone(), (FakeText) text));
                float[] v = new float[latentTokens.length];
                for (int i = 0; i + 1 < sigmas.length; i++) {
                    FakeModel.velocity(
                            latentTokens,
                            sigmas[i],
                            setup.positionIds(),
                            setup.referenceTokens(),
                            ((FakeText) text).scalar,
                            v);
                    float dt = sigmas[i + 1] - sigmas[i];
                    for (int j = 0; j < v.length; j++) {
                        latentTokens[j] += dt * v[j];
                    }
                }
                return null;
            });
        }

        private void checkOpen(TextEmbedding text) {
            if (closes.get() > 0 || ((FakeText) text).closes.get() > 0) {
                throw new IllegalStateException("session or text embedding used after close");
            }
        }

        @Override
        public void close() {
            if (closes.incrementAndGet() == 1) {
                try {
                    abortRegistration.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }
}
