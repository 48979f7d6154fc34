package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtSession;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.TransformerIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.session.SessionSpec;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The per-step transformer of one generation: x [1, N+M, 128] (noise tokens, then the clean reference tokens,
 * written once), x_ids and ctx_ids (created once), the timestep as diffusers passes it (σ, as
 * {@link DenoiseStep#transformerTimestep()}), and the prediction written into a
 * pinned [1, N+M, 128] tensor of which only the first N tokens are read back. Every tensor has the element type
 * and rank its graph input declares; only x and σ are rewritten per step. The session is leased on the first
 * step and held until {@link #close()}. Not thread-safe: one generation owns it.
 */
final class PerStepDenoiser implements AutoCloseable {

    private final StageResources resources;
    private final StageContext context;
    private final TransformerIo io;
    private final int noiseValues;
    private final ResourceScope owned = new ResourceScope();
    private final TensorBuffer x;
    private final TensorBuffer xIds;
    private final TensorBuffer timesteps;
    private final TensorBuffer ctxIds;
    private final TensorBuffer pred;
    private final ContextFeed contextFeed;
    private final Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
    private final Map<String, OnnxValue> pinned;
    private SessionLease lease;

    PerStepDenoiser(StageResources resources, DenoiserSetup setup, StageContext context) {
        this.resources = resources;
        this.context = context;
        this.io = resources.io().transformer();
        int tokens = setup.noiseTokens() + setup.referenceTokenCount();
        int textLength = resources.config().text().sequenceLength();
        this.noiseValues = setup.noiseTokens() * LatentGrid.CHANNELS;
        try {
            x = own(resources.allocate(io.inputs().x().elementType(), 1, tokens, LatentGrid.CHANNELS));
            x.writeFloats(setup.referenceTokens(), 0, setup.referenceTokens().length, noiseValues);
            xIds = own(resources.allocate(
                    io.inputs().xIds().elementType(), Shapes.ids(io.inputs().xIds(), tokens)));
            xIds.writeFloats(setup.positionIds(), 0, setup.positionIds().length, 0);
            timesteps = own(resources.allocate(io.timesteps().elementType(), Shapes.singleValue(io.timesteps())));
            ctxIds = own(resources.allocate(
                    io.inputs().ctxIds().elementType(), Shapes.ids(io.inputs().ctxIds(), textLength)));
            ctxIds.writeFloats(setup.textIds(), 0, setup.textIds().length, 0);
            pred = own(resources.allocate(io.pred().elementType(), 1, tokens, LatentGrid.CHANNELS));
            contextFeed = own(new ContextFeed(resources, io.inputs().ctx()));
            pinned = Map.of(io.pred().name(), pred.tensor());
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private <T extends AutoCloseable> T own(T resource) {
        return owned.add(resource);
    }

    void predict(DenoiseStep step, float[] latentTokens, TextEmbedding text, float[] velocityOut) {
        if (latentTokens.length != noiseValues || velocityOut.length != noiseValues) {
            throw new IllegalArgumentException(step.label() + ": expected " + noiseValues + " latent and velocity "
                    + "values (N·128), got " + latentTokens.length + " and " + velocityOut.length);
        }
        x.writeFloats(latentTokens, 0, noiseValues, 0);
        // What diffusers' pipeline passes its transformer, t/1000 in float32 (σ or one ulp from it), for every
        // signature family: each export wraps the same transformer forward (docs/bundle-format.md §8.2).
        timesteps.writeFloat(0, step.transformerTimestep());
        // Built once: the tensors are the same every step; only ctx changes, when another text is passed.
        OnnxTensorLike ctx = contextFeed.tensorFor(text);
        if (inputs.get(io.inputs().ctx().name()) != ctx) {
            inputs.put(io.inputs().x().name(), x.tensor());
            inputs.put(io.inputs().xIds().name(), xIds.tensor());
            inputs.put(io.timesteps().name(), timesteps.tensor());
            inputs.put(io.inputs().ctx().name(), ctx);
            inputs.put(io.inputs().ctxIds().name(), ctxIds.tensor());
        }
        if (lease == null) {
            lease = resources.sessions().acquire(spec(resources, x.shape()[1]));
        }
        try (OrtSession.Result ignored = lease.session()
                .run(
                        new RunCall(
                                inputs,
                                Set.of(),
                                pinned,
                                "transformer " + step.label(),
                                step.index() == step.total() - 1),
                        context)) {
            pred.readFloats(0, velocityOut, 0, noiseValues);
        }
    }

    /**
     * The transformer's session spec for a generation of {@code tokens} image tokens (noise and reference): the
     * shapes of the tensors this class feeds, so that a session opened ahead ({@code OnnxBackend.prepare}) is the one
     * the first step takes.
     *
     * @param resources the backend's resources
     * @param tokens N + M
     * @return the spec
     */
    static SessionSpec spec(StageResources resources, long tokens) {
        TransformerIo io = resources.io().transformer();
        int textLength = resources.config().text().sequenceLength();
        Map<String, long[]> shapes = new LinkedHashMap<>();
        shapes.put(io.inputs().x().name(), new long[] {1, tokens, LatentGrid.CHANNELS});
        shapes.put(io.inputs().xIds().name(), Shapes.ids(io.inputs().xIds(), Math.toIntExact(tokens)));
        shapes.put(io.timesteps().name(), Shapes.singleValue(io.timesteps()));
        shapes.put(
                io.inputs().ctx().name(),
                new long[] {1, textLength, resources.config().text().contextDim()});
        shapes.put(io.inputs().ctxIds().name(), Shapes.ids(io.inputs().ctxIds(), textLength));
        return resources.specs().forInputs(GraphKeys.TRANSFORMER, shapes);
    }

    @Override
    public void close() {
        if (lease != null) {
            lease.close();
            lease = null;
        }
        owned.close();
    }
}
