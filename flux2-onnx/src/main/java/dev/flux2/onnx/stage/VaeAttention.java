package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.Stage;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.bundle.VaeDecoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.onnx.tensor.TensorTypes;
import dev.flux2.spi.StageContext;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runs the attention-chunk graph over the pre stage's q, kᵀ and v (docs/bundle-format.md §10.3). Whole: q is fed as is
 * and the result written straight into the output. Chunked: q is copied out once, each chunk's rows are copied into a
 * reused [1, 1, C, d] tensor (the last chunk zero-padded to C rows, so every call has the same shape), the full kᵀ and
 * v are fed every time, and the first {@code min(C, S − start)} result rows are copied into the output. A pre stage
 * output whose type the attention graph does not take is converted once before the first call. Reports one progress
 * unit per call and checks cancellation between chunks. Stateless apart from its configuration.
 */
final class VaeAttention {
    private final StageResources resources;
    private final VaeDecoderIo.Attention io;
    private final VaeAttentionSettings settings;

    /**
     * @param resources the backend's resources
     * @param io the attention-chunk graph
     * @param settings mode and chunk size
     */
    VaeAttention(StageResources resources, VaeDecoderIo.Attention io, VaeAttentionSettings settings) {
        this.resources = resources;
        this.io = io;
        this.settings = settings;
    }

    /**
     * @param q the pre stage's q [1, 1, S, d]
     * @param kt the pre stage's kᵀ [1, 1, d, S]
     * @param v the pre stage's v [1, 1, S, d]
     * @param out receives the attention result [1, 1, S, d]
     * @param context the generation's context
     */
    void run(OnnxTensor q, OnnxTensor kt, OnnxTensor v, TensorBuffer out, StageContext context) {
        long[] qShape = q.getInfo().getShape();
        int s = (int) qShape[2];
        int d = (int) qShape[3];
        VaeAttentionPlan plan = VaeAttentionPlan.choose(settings.mode(), settings.chunkRows(), io.fixedChunkRows(), s);
        int chunks = plan.chunks(s);
        try (ResourceScope converted = new ResourceScope()) {
            // kᵀ and v are fed whole to every call; a type the graph does not take is converted once.
            OnnxTensorLike ktIn = as(kt, io.kt(), converted);
            OnnxTensorLike vIn = as(v, io.v(), converted);
            if (plan.whole()) {
                runOnce(as(q, io.qChunk(), converted), ktIn, vIn, out, context);
                context.advance(Stage.VAE_DECODE, 1, 1);
                return;
            }
            int rows = plan.rows();
            ByteBuffer qBytes = TensorTypes.of(q) == io.qChunk().elementType()
                    ? OutputReader.bytes(q)
                    : converted
                            .add(resources.convertedCopy(q, io.qChunk().elementType()))
                            .bytes();
            chunked(new Chunking(qBytes, ktIn, vIn, rows, d, s), out, context, chunks);
        }
    }

    /**
     * The inputs of a chunked run.
     *
     * @param q all query rows, as raw elements of the graph's q type
     * @param kt the transposed keys to feed
     * @param v the values to feed
     * @param rows query rows per call
     * @param headDim d
     * @param length S
     */
    private record Chunking(ByteBuffer q, OnnxTensorLike kt, OnnxTensorLike v, int rows, int headDim, int length) {}

    private void chunked(Chunking c, TensorBuffer out, StageContext context, int chunks) {
        int rows = c.rows();
        int d = c.headDim();
        try (TensorBuffer qChunk = resources.allocate(io.qChunk().elementType(), 1, 1, rows, d);
                TensorBuffer outChunk = resources.allocate(io.output().elementType(), 1, 1, rows, d);
                SessionLease lease = resources
                        .sessions()
                        .acquire(resources
                                .specs()
                                .forInputs(io.key(), Shapes.of(inputs(qChunk.tensor(), c.kt(), c.v()))))) {
            for (int k = 0; k < chunks; k++) {
                String where = "vae decoder attention chunk " + (k + 1) + "/" + chunks;
                context.throwIfCancelled(where);
                int start = k * rows;
                int valid = Math.min(rows, c.length() - start);
                qChunk.copyElements(c.q(), start * d, 0, valid * d);
                if (valid < rows) {
                    qChunk.zero(valid * d, (rows - valid) * d);
                }
                try (OrtSession.Result ignored = lease.session()
                        .run(
                                new RunCall(
                                        inputs(qChunk.tensor(), c.kt(), c.v()),
                                        Set.of(),
                                        Map.of(io.output().name(), outChunk.tensor()),
                                        where,
                                        k == chunks - 1),
                                context)) {
                    out.copyElements(outChunk.bytes(), 0, start * d, valid * d);
                }
                context.advance(Stage.VAE_DECODE, k + 1, chunks);
            }
        }
    }

    /** @return the tensor itself when the graph takes its type, else a converted copy owned by {@code scope} */
    private OnnxTensorLike as(OnnxTensor tensor, TensorSignature input, ResourceScope scope) {
        return TensorTypes.of(tensor) == input.elementType()
                ? tensor
                : scope.add(resources.convertedCopy(tensor, input.elementType()))
                        .tensor();
    }

    private void runOnce(
            OnnxTensorLike q, OnnxTensorLike kt, OnnxTensorLike v, TensorBuffer out, StageContext context) {
        Map<String, OnnxTensorLike> inputs = inputs(q, kt, v);
        try (SessionLease lease =
                        resources.sessions().acquire(resources.specs().forInputs(io.key(), Shapes.of(inputs)));
                OrtSession.Result ignored = lease.session()
                        .run(
                                new RunCall(
                                        inputs,
                                        Set.of(),
                                        Map.of(io.output().name(), out.tensor()),
                                        "vae decoder attention"),
                                context)) {
            // The result was written into the pinned output.
        }
    }

    private Map<String, OnnxTensorLike> inputs(OnnxTensorLike q, OnnxTensorLike kt, OnnxTensorLike v) {
        Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
        inputs.put(io.qChunk().name(), q);
        inputs.put(io.kt().name(), kt);
        inputs.put(io.v().name(), v);
        return inputs;
    }
}
