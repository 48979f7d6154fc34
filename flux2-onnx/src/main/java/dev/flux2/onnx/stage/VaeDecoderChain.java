package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.Stage;
import dev.flux2.onnx.bundle.DecoderIo;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.bundle.UnifiedDecoderIo;
import dev.flux2.onnx.bundle.VaeDecoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.session.SessionSpec;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.onnx.tensor.TensorTypes;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.StageContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes a latent with the bundle's VAE decoder (docs/bundle-format.md §10).
 *
 * <p>Unified ({@code models.vae_decoder}): one run from z [1, 128, H/16, W/16] to the image [1, 3, H, W].
 *
 * <p>Split: the pre-attention stage on z (it de-normalises and unpatchifies itself), single-head attention
 * ({@link VaeAttention}), then the post graphs in order, each input fed from the tensor the checked contract names
 * for it (the residual, the attention result or an earlier stage's output), ending in the image in [−1, 1]. A
 * tensor whose producer and consumer declare different float types is converted on the way.
 *
 * <p>Stage outputs stay in native memory and are fed straight to the next stage. Each run's outputs and session
 * are released right after the last stage that reads them, so under SEQUENTIAL a simple chain holds at most two
 * decoder stages at a time. Thread-safe (no mutable state).
 */
public final class VaeDecoderChain {

    private final StageResources resources;
    private final VaeAttentionSettings settings;

    /**
     * @param resources the backend's resources
     * @param settings attention mode and chunk size (used by the split decoder)
     */
    public VaeDecoderChain(StageResources resources, VaeAttentionSettings settings) {
        this.resources = resources;
        this.settings = settings;
    }

    /**
     * @param latent the normalised, patchified latent [128, H/16, W/16]
     * @param context the generation's context
     * @return the pixels, nominally in [−1, 1]
     */
    public PixelTensor decode(LatentGrid latent, StageContext context) {
        if (latent.channels() != LatentGrid.CHANNELS) {
            throw new IllegalArgumentException(
                    "the VAE decoder takes a " + LatentGrid.CHANNELS + "-channel latent, got " + latent.channels());
        }
        DecoderIo io = resources.io().decoder();
        if (io instanceof UnifiedDecoderIo unified) {
            return unified(unified, latent, context);
        }
        return split((VaeDecoderIo) io, latent, context);
    }

    private PixelTensor unified(UnifiedDecoderIo io, LatentGrid latent, StageContext context) {
        int height = latent.height() * 16;
        int width = latent.width() * 16;
        try (ResourceScope scope = new ResourceScope()) {
            TensorBuffer z = scope.add(latentInput(io.z(), latent));
            TensorBuffer image = scope.add(resources.allocate(io.image().elementType(), 1, 3, height, width));
            Map<String, OnnxTensorLike> inputs = Map.of(io.z().name(), z.tensor());
            SessionLease lease =
                    scope.add(resources.sessions().acquire(resources.specs().forInputs(io.key(), Shapes.of(inputs))));
            scope.add(lease.session()
                    .run(
                            new RunCall(
                                    inputs,
                                    Set.of(),
                                    Map.of(io.image().name(), image.tensor()),
                                    "vae decoder " + io.key()),
                            context));
            float[] pixels = new float[3 * height * width];
            image.readFloats(0, pixels, 0, pixels.length);
            context.advance(Stage.VAE_DECODE, 1, 1);
            return new PixelTensor(pixels, width, height);
        }
    }

    private PixelTensor split(VaeDecoderIo io, LatentGrid latent, StageContext context) {
        int height = latent.height() * 16;
        int width = latent.width() * 16;
        try (ResourceScope scope = new ResourceScope()) {
            TensorBuffer z = scope.add(latentInput(io.z(), latent));
            Map<String, OnnxTensorLike> preInputs = Map.of(io.z().name(), z.tensor());
            String where = "vae decoder pre-attention";
            SessionLease preLease = scope.add(
                    resources.sessions().acquire(resources.specs().forInputs(io.preKey(), Shapes.of(preInputs))));
            OrtSession.Result pre = scope.add(preLease.session()
                    .run(
                            new RunCall(
                                    preInputs,
                                    new LinkedHashSet<>(List.of(
                                            io.residual().name(),
                                            io.q().name(),
                                            io.kt().name(),
                                            io.v().name())),
                                    Map.of(),
                                    where),
                            context));
            scope.closeNow(z);
            OnnxTensor q = OutputReader.tensor(pre, io.q().name(), where);
            long[] qShape = q.getInfo().getShape();
            TensorBuffer attn =
                    scope.add(resources.allocate(io.attention().output().elementType(), 1, 1, qShape[2], qShape[3]));
            new VaeAttention(resources, io.attention(), settings)
                    .run(
                            q,
                            OutputReader.tensor(pre, io.kt().name(), where),
                            OutputReader.tensor(pre, io.v().name(), where),
                            attn,
                            context);

            Produced produced = new Produced(io.post(), scope);
            produced.put(
                    produced.group(pre, preLease),
                    new VaeDecoderIo.Source(
                            VaeDecoderIo.SourceKind.RESIDUAL,
                            -1,
                            "",
                            io.residual().elementType()),
                    OutputReader.tensor(pre, io.residual().name(), where));
            produced.put(
                    produced.group(attn),
                    new VaeDecoderIo.Source(
                            VaeDecoderIo.SourceKind.ATTENTION,
                            -1,
                            "",
                            io.attention().output().elementType()),
                    attn.tensor());
            OnnxTensor image = null;
            for (int i = 0; i < io.post().size(); i++) {
                image = runPostStage(io.post().get(i), i, produced, context);
            }
            float[] pixels = OutputReader.floats(
                    image,
                    new long[] {1, 3, height, width},
                    "vae decoder " + io.post().get(io.post().size() - 1).key());
            return new PixelTensor(pixels, width, height);
        }
    }

    /**
     * The session spec of the decoder's first graph (the unified decoder, or the pre-attention stage) for a latent of
     * {@code gridWidth × gridHeight}: what {@link #decode} acquires first, so a session opened ahead is the one it
     * takes.
     *
     * @param resources the backend's resources
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return the spec
     */
    public static SessionSpec firstSpec(StageResources resources, int gridWidth, int gridHeight) {
        DecoderIo io = resources.io().decoder();
        long[] z = {1, LatentGrid.CHANNELS, gridHeight, gridWidth};
        if (io instanceof UnifiedDecoderIo unified) {
            return resources.specs().forInputs(unified.key(), Map.of(unified.z().name(), z));
        }
        VaeDecoderIo split = (VaeDecoderIo) io;
        return resources.specs().forInputs(split.preKey(), Map.of(split.z().name(), z));
    }

    /** @return z [1, 128, H/16, W/16] in the element type the decoder's first graph takes; the caller closes it */
    private TensorBuffer latentInput(TensorSignature z, LatentGrid latent) {
        TensorBuffer buffer =
                resources.allocate(z.elementType(), 1, LatentGrid.CHANNELS, latent.height(), latent.width());
        try {
            buffer.writeFloats(latent.data(), 0, latent.data().length, 0);
            return buffer;
        } catch (RuntimeException e) {
            buffer.close();
            throw e;
        }
    }

    /** @return the stage's first output (the image, for the last stage) */
    private OnnxTensor runPostStage(VaeDecoderIo.PostStage stage, int index, Produced produced, StageContext context) {
        String where = "vae decoder " + stage.key();
        ResourceScope scope = produced.scope();
        Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
        List<AutoCloseable> conversions = new ArrayList<>();
        for (VaeDecoderIo.Feed feed : stage.feeds()) {
            OnnxTensor source = produced.get(feed.source());
            if (TensorTypes.of(source) == feed.input().elementType()) {
                inputs.put(feed.input().name(), source);
            } else {
                TensorBuffer converted =
                        scope.add(resources.convertedCopy(source, feed.input().elementType()));
                conversions.add(converted);
                inputs.put(feed.input().name(), converted.tensor());
            }
        }
        SessionLease lease =
                scope.add(resources.sessions().acquire(resources.specs().forInputs(stage.key(), Shapes.of(inputs))));
        Set<String> requested = new LinkedHashSet<>();
        stage.outputs().forEach(o -> requested.add(o.name()));
        OrtSession.Result result =
                scope.add(lease.session().run(new RunCall(inputs, requested, Map.of(), where), context));
        conversions.forEach(scope::closeNow);
        Produced.Group group = produced.group(result, lease);
        OnnxTensor first = null;
        for (TensorSignature output : stage.outputs()) {
            OnnxTensor out = OutputReader.tensor(result, output.name(), where);
            first = first == null ? out : first;
            produced.put(
                    group,
                    new VaeDecoderIo.Source(VaeDecoderIo.SourceKind.STAGE, index, output.name(), output.elementType()),
                    out);
        }
        produced.releaseAfter(index);
        return first;
    }

    /**
     * The tensors the post stages read, grouped by what keeps them alive (a run's result and its session lease, or
     * the attention buffer); a group is released once the last stage reading any of its tensors has run. Not
     * thread-safe: one decode owns it.
     */
    private static final class Produced {
        private final ResourceScope scope;
        private final Map<String, Integer> lastReader = new HashMap<>();
        private final Map<String, OnnxTensor> tensors = new HashMap<>();
        private final List<Group> groups = new ArrayList<>();

        /** Resources released together, after the stage index {@code lastUse}. */
        private static final class Group {
            private final List<AutoCloseable> holders;
            private int lastUse = -1;
            private boolean released;

            Group(List<AutoCloseable> holders) {
                this.holders = holders;
            }
        }

        Produced(List<VaeDecoderIo.PostStage> stages, ResourceScope scope) {
            this.scope = scope;
            for (int i = 0; i < stages.size(); i++) {
                for (VaeDecoderIo.Feed f : stages.get(i).feeds()) {
                    lastReader.merge(key(f.source()), i, Math::max);
                }
            }
        }

        ResourceScope scope() {
            return scope;
        }

        private static String key(VaeDecoderIo.Source source) {
            return source.kind() + "/" + source.stage() + "/" + source.output();
        }

        /**
         * @param holders resources that keep the tensors of one run alive, closed in this order
         * @return the group to register those tensors in
         */
        Group group(AutoCloseable... holders) {
            Group g = new Group(List.of(holders));
            groups.add(g);
            return g;
        }

        /**
         * @param group what keeps the tensor alive
         * @param source which tensor it is
         * @param tensor the tensor
         */
        void put(Group group, VaeDecoderIo.Source source, OnnxTensor tensor) {
            String key = key(source);
            tensors.put(key, tensor);
            // A tensor no stage reads (the final image) keeps its group until the decode ends.
            group.lastUse = Math.max(group.lastUse, lastReader.getOrDefault(key, Integer.MAX_VALUE));
        }

        OnnxTensor get(VaeDecoderIo.Source source) {
            OnnxTensor t = tensors.get(key(source));
            if (t == null) {
                throw new IllegalStateException("no tensor produced for " + source);
            }
            return t;
        }

        /** @param stage the stage that just ran: closes the groups no later stage reads from */
        void releaseAfter(int stage) {
            for (Group g : groups) {
                if (!g.released && g.lastUse <= stage) {
                    g.released = true;
                    g.holders.forEach(scope::closeNow);
                }
            }
        }
    }
}
