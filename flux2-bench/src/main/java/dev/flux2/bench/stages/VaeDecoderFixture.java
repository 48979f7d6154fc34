package dev.flux2.bench.stages;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.bench.support.StageHarness;
import dev.flux2.math.TorchRandom;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.bundle.VaeDecoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.stage.StageResources;
import dev.flux2.onnx.stage.VaeAttentionPlan;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.onnx.tensor.TensorTypes;
import dev.flux2.spi.LatentGrid;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The split VAE decoder taken apart (docs/bundle-format.md §10), with every intermediate tensor computed once at setup
 * so each part can be run on its own: the pre-attention stage on z, one attention chunk of the bundle's chunk size,
 * attention over the whole sequence in one call, and each post stage on its real input. Runs go through the backend's
 * session cache and {@code ManagedSession.run}, with the same I/O names the decoder chain uses.
 */
final class VaeDecoderFixture implements AutoCloseable {
    private final StageHarness harness;
    private final StageResources resources;
    private final VaeDecoderIo io;
    private final Deque<AutoCloseable> owned = new ArrayDeque<>();
    private final TensorBuffer z;
    private final SessionLease preLease;
    private final OnnxTensor residual;
    private final OnnxTensor q;
    private final OnnxTensor kt;
    private final OnnxTensor v;
    private final TensorBuffer qChunk;
    private final TensorBuffer chunkOut;
    private final SessionLease chunkLease;
    private final TensorBuffer attention;
    private final SessionLease wholeLease;
    private final List<SessionLease> postLeases = new ArrayList<>();
    private final List<Map<String, OnnxTensorLike>> postInputs = new ArrayList<>();
    private final int chunkRows;
    private final int sequence;

    VaeDecoderFixture(Path bundle, int size) {
        this.harness = StageHarness.open(bundle);
        try {
            this.resources = harness.resources();
            this.io = resources
                    .io()
                    .splitDecoder()
                    .orElseThrow(() -> new IllegalStateException("bundle " + bundle
                            + " decodes with one unified graph; the VAE part benchmarks need the split chain"));
            int[] wh = harness.imageSize(size);
            int gh = wh[1] / 16;
            int gw = wh[0] / 16;
            z = own(TensorBuffer.allocate(resources.env(), io.z().elementType(), 1, LatentGrid.CHANNELS, gh, gw));
            z.writeFloats(TorchRandom.randn(7L, LatentGrid.CHANNELS * gh * gw), 0, LatentGrid.CHANNELS * gh * gw, 0);
            preLease = own(lease(io.preKey(), Map.of(io.z().name(), z.tensor())));
            OrtSession.Result pre = own(runPre());
            residual = OutputReader.tensor(pre, io.residual().name(), "pre");
            q = OutputReader.tensor(pre, io.q().name(), "pre");
            kt = OutputReader.tensor(pre, io.kt().name(), "pre");
            v = OutputReader.tensor(pre, io.v().name(), "pre");
            long[] qShape = q.getInfo().getShape();
            sequence = (int) qShape[2];
            int d = (int) qShape[3];

            long fixed = io.attention().fixedChunkRows();
            int configured = resources
                    .config()
                    .requiredModel(io.attention().key())
                    .settings()
                    .chunkSize()
                    .orElse(VaeAttentionPlan.DEFAULT_CHUNK_ROWS);
            chunkRows = (int) Math.min(fixed > 0 ? fixed : configured, sequence);
            qChunk = own(TensorBuffer.allocate(
                    resources.env(), io.attention().qChunk().elementType(), 1, 1, chunkRows, d));
            qChunk.copyElements(OutputReader.bytes(q), 0, 0, chunkRows * d);
            chunkOut = own(TensorBuffer.allocate(
                    resources.env(), io.attention().output().elementType(), 1, 1, chunkRows, d));
            chunkLease = own(lease(io.attention().key(), attentionInputs(qChunk.tensor())));
            attention = own(TensorBuffer.allocate(
                    resources.env(), io.attention().output().elementType(), 1, 1, sequence, d));
            wholeLease = fixed > 0 && fixed != sequence
                    ? null
                    : own(lease(io.attention().key(), attentionInputs(q)));
            if (wholeLease == null) {
                throw new IllegalStateException("the attention-chunk graph fixes its rows to " + fixed
                        + ", so whole-sequence attention (S = " + sequence + ") cannot run on this bundle");
            }
            own(attentionWhole());

            Map<String, OnnxTensor> produced = new HashMap<>();
            for (int i = 0; i < io.post().size(); i++) {
                VaeDecoderIo.PostStage stage = io.post().get(i);
                Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
                for (VaeDecoderIo.Feed feed : stage.feeds()) {
                    OnnxTensor source = source(feed.source(), produced);
                    // Convert where the consumer declares another element type, as the decoder chain does.
                    inputs.put(
                            feed.input().name(),
                            TensorTypes.of(source) == feed.input().elementType()
                                    ? source
                                    : own(TensorBuffer.convertedCopy(
                                                    resources.env(),
                                                    source,
                                                    feed.input().elementType()))
                                            .tensor());
                }
                postInputs.add(inputs);
                postLeases.add(own(lease(stage.key(), inputs)));
                OrtSession.Result out = own(postStage(i));
                for (TensorSignature output : stage.outputs()) {
                    produced.put(i + "/" + output.name(), OutputReader.tensor(out, output.name(), stage.key()));
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** @return the pre-attention result (residual, q, kᵀ, v); the caller closes it */
    OrtSession.Result runPre() {
        return preLease.session()
                .run(
                        new RunCall(
                                Map.of(io.z().name(), z.tensor()),
                                new LinkedHashSet<>(List.of(
                                        io.residual().name(),
                                        io.q().name(),
                                        io.kt().name(),
                                        io.v().name())),
                                Map.of(),
                                "vae decoder pre-attention"),
                        harness.context());
    }

    /** @return the result of the first attention chunk (written into a pinned output); the caller closes it */
    OrtSession.Result attentionChunk() {
        return chunkLease
                .session()
                .run(
                        new RunCall(
                                attentionInputs(qChunk.tensor()),
                                Set.of(),
                                Map.of(io.attention().output().name(), chunkOut.tensor()),
                                "vae decoder attention chunk"),
                        harness.context());
    }

    /** @return the result of attention over all S rows in one call (pinned output); the caller closes it */
    OrtSession.Result attentionWhole() {
        return wholeLease
                .session()
                .run(
                        new RunCall(
                                attentionInputs(q),
                                Set.of(),
                                Map.of(io.attention().output().name(), attention.tensor()),
                                "vae decoder attention"),
                        harness.context());
    }

    /**
     * @param index post stage index
     * @return the stage's result on its real input; the caller closes it
     */
    OrtSession.Result postStage(int index) {
        VaeDecoderIo.PostStage stage = io.post().get(index);
        Set<String> requested = new LinkedHashSet<>();
        stage.outputs().forEach(o -> requested.add(o.name()));
        return postLeases
                .get(index)
                .session()
                .run(
                        new RunCall(postInputs.get(index), requested, Map.of(), "vae decoder " + stage.key()),
                        harness.context());
    }

    /** @return the number of post stages */
    int postStages() {
        return io.post().size();
    }

    /** @return attention rows per chunk (the bundle's chunk size, at most S) */
    int chunkRows() {
        return chunkRows;
    }

    /** @return S, the attention sequence length */
    int sequence() {
        return sequence;
    }

    private Map<String, OnnxTensorLike> attentionInputs(OnnxTensorLike query) {
        Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
        inputs.put(io.attention().qChunk().name(), query);
        inputs.put(io.attention().kt().name(), kt);
        inputs.put(io.attention().v().name(), v);
        return inputs;
    }

    private OnnxTensor source(VaeDecoderIo.Source source, Map<String, OnnxTensor> produced) {
        switch (source.kind()) {
            case RESIDUAL:
                return residual;
            case ATTENTION:
                return attention.tensor();
            case STAGE:
                OnnxTensor t = produced.get(source.stage() + "/" + source.output());
                if (t == null) {
                    throw new IllegalStateException("post stage output " + source.output() + " of stage "
                            + source.stage() + " was not produced");
                }
                return t;
            default:
                throw new IllegalStateException("unknown post stage source " + source.kind());
        }
    }

    private SessionLease lease(String key, Map<String, ? extends OnnxTensorLike> inputs) {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        inputs.forEach((name, t) -> shapes.put(name, ((OnnxTensor) t).getInfo().getShape()));
        return resources.sessions().acquire(resources.specs().forInputs(key, shapes));
    }

    private <T extends AutoCloseable> T own(T resource) {
        owned.push(resource);
        return resource;
    }

    /** Closes every result, tensor and lease (newest first), then the harness. */
    @Override
    public void close() {
        RuntimeException failure = null;
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the VAE decoder fixture failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        try {
            harness.close();
        } catch (RuntimeException e) {
            if (failure == null) {
                failure = e;
            } else {
                failure.addSuppressed(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
