package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.onnx.bundle.Dim;
import dev.flux2.onnx.bundle.FusedChoice;
import dev.flux2.onnx.bundle.FusedConvention;
import dev.flux2.onnx.bundle.FusedIo;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.bundle.TransformerInputs;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.FusedSupport;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TextEmbedding;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runs a fused multi-step transformer graph once for a whole schedule (docs/bundle-format.md §9), in either convention:
 * <ul>
 *   <li>{@link FusedConvention#ENGINE}: {@code timestep_i} = σ_i and {@code dt_i} = σ_{i+1} − σ_i (computed in
 *       fp32, as the per-step Euler update does), each a one-value tensor of the type the graph declares;</li>
 *   <li>{@link FusedConvention#LISTED}: one {@code timesteps} tensor of the graph's fixed shape holding
 *       σ_0..σ_{k−1}, or σ_0..σ_k when it holds k+1 values.</li>
 * </ul>
 * The graph takes the noise tokens only (no reference tokens) and returns the final latent. The session is leased
 * for the call only, so a SEQUENTIAL run never holds the fused and the per-step transformer at once.
 * Not thread-safe: one generation owns it.
 */
final class FusedDenoiser {

    private final StageResources resources;
    private final DenoiserSetup setup;
    private final StageContext context;
    private final FusedChoice choice;

    /**
     * @param resources the backend's resources
     * @param setup the generation's token layout
     * @param context the generation's context
     * @param choice the backend's decision whether a fused graph may run
     */
    FusedDenoiser(StageResources resources, DenoiserSetup setup, StageContext context, FusedChoice choice) {
        this.resources = resources;
        this.setup = setup;
        this.context = context;
        this.choice = choice;
    }

    FusedSupport support(int steps) {
        if (!choice.usable()) {
            return FusedSupport.unavailable(choice.reason());
        }
        FusedIo io = choice.graph().orElseThrow();
        if (steps != io.steps()) {
            return FusedSupport.unavailable(
                    "the fused graph runs exactly " + io.steps() + " steps, the schedule has " + steps);
        }
        if (setup.referenceTokenCount() > 0) {
            return FusedSupport.unavailable(
                    "the fused graph takes no reference tokens and this generation has " + setup.referenceTokenCount());
        }
        Dim tokens = io.inputs().orElseThrow().x().dimOrFree(1);
        if (tokens.isFixed() && tokens.value() != setup.noiseTokens()) {
            return FusedSupport.unavailable("the fused graph is fixed to " + tokens.value() + " image tokens and this "
                    + "generation has " + setup.noiseTokens());
        }
        return FusedSupport.available(choice.reason());
    }

    void denoise(float[] sigmas, float[] latentTokens, TextEmbedding text) {
        int steps = sigmas.length - 1;
        FusedSupport support = support(steps);
        if (!support.available()) {
            throw new IllegalStateException(
                    "denoiseFused called although the fused graph cannot run: " + support.reason());
        }
        if (sigmas[steps] != 0f) {
            throw new IllegalArgumentException("fused sigmas must end with 0, got " + Arrays.toString(sigmas));
        }
        int values = setup.noiseTokens() * LatentGrid.CHANNELS;
        if (latentTokens.length != values) {
            throw new IllegalArgumentException(
                    "expected " + values + " latent values (N·128), got " + latentTokens.length);
        }
        FusedIo io = choice.graph().orElseThrow();
        TransformerInputs in = io.inputs().orElseThrow();
        TensorSignature latentOut = io.latent().orElseThrow();
        int tokens = setup.noiseTokens();
        int textLength = resources.config().text().sequenceLength();
        try (ResourceScope owned = new ResourceScope();
                ContextFeed contextFeed = new ContextFeed(resources, in.ctx())) {
            Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
            TensorBuffer x = owned.add(resources.allocate(in.x().elementType(), 1, tokens, LatentGrid.CHANNELS));
            x.writeFloats(latentTokens, 0, values, 0);
            inputs.put(in.x().name(), x.tensor());
            TensorBuffer xIds = owned.add(resources.allocate(in.xIds().elementType(), Shapes.ids(in.xIds(), tokens)));
            xIds.writeFloats(setup.positionIds(), 0, tokens * 4, 0);
            inputs.put(in.xIds().name(), xIds.tensor());
            inputs.put(in.ctx().name(), contextFeed.tensorFor(text));
            TensorBuffer ctxIds =
                    owned.add(resources.allocate(in.ctxIds().elementType(), Shapes.ids(in.ctxIds(), textLength)));
            ctxIds.writeFloats(setup.textIds(), 0, setup.textIds().length, 0);
            inputs.put(in.ctxIds().name(), ctxIds.tensor());
            addSchedule(io, sigmas, inputs, owned);
            TensorBuffer latent =
                    owned.add(resources.allocate(latentOut.elementType(), 1, tokens, LatentGrid.CHANNELS));
            try (SessionLease lease = resources
                            .sessions()
                            .acquire(resources.specs().forInputs(GraphKeys.TRANSFORMER_FUSED, Shapes.of(inputs)));
                    OrtSession.Result ignored = lease.session()
                            .run(
                                    new RunCall(
                                            inputs,
                                            Set.of(),
                                            Map.of(latentOut.name(), latent.tensor()),
                                            "fused transformer (" + steps + " steps)"),
                                    context)) {
                latent.readFloats(0, latentTokens, 0, values);
            }
        }
    }

    private void addSchedule(FusedIo io, float[] sigmas, Map<String, OnnxTensorLike> inputs, ResourceScope owned) {
        if (io.convention() == FusedConvention.ENGINE) {
            for (int i = 0; i < io.steps(); i++) {
                TensorSignature t = io.timestepInputs().get(i);
                TensorSignature d = io.dtInputs().get(i);
                inputs.put(t.name(), scalar(t, sigmas[i], owned));
                inputs.put(d.name(), scalar(d, sigmas[i + 1] - sigmas[i], owned));
            }
        } else {
            TensorSignature t = io.timestepInputs().get(0);
            TensorBuffer buffer = owned.add(resources.allocate(t.elementType(), Shapes.fixed(t)));
            // k values are σ_0..σ_{k−1}; k + 1 values also carry the final 0.
            buffer.writeFloats(sigmas, 0, buffer.elements(), 0);
            inputs.put(t.name(), buffer.tensor());
        }
    }

    private OnnxTensorLike scalar(TensorSignature t, float value, ResourceScope owned) {
        TensorBuffer buffer = owned.add(resources.allocate(t.elementType(), Shapes.singleValue(t)));
        buffer.writeFloat(0, value);
        return buffer.tensor();
    }
}
