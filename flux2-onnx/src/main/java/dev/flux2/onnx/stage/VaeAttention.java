package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.Stage;
import dev.flux2.onnx.config.GraphKeys;
import dev.flux2.onnx.graph.VaeDecoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.StageContext;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runs the attention-chunk graph over the pre stage's q, kᵀ and v (onnx-bundle §8). Whole: q is fed as is and the
 * result written straight into the output. Chunked: q is copied out once, each chunk's rows are copied into a
 * reused [1, 1, C, d] tensor (the last chunk zero-padded to C rows, so every call has the same shape), the full kᵀ
 * and v are fed every time, and the first {@code min(C, S − start)} result rows are copied into the output. Reports
 * one progress unit per call and checks cancellation between chunks. Stateless apart from its configuration.
 */
final class VaeAttention {
    private final StageResources resources;
    private final VaeDecoderIo.Attention io;
    private final AttentionSettings settings;

    /**
     * @param resources the backend's resources
     * @param settings mode and chunk size
     */
    VaeAttention(StageResources resources, AttentionSettings settings) {
        this.resources = resources;
        this.io = resources.io().vaeDecoder().attention();
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
        AttentionPlan plan = AttentionPlan.choose(settings.mode(), settings.chunkRows(), io.fixedChunkRows(), s);
        int chunks = plan.chunks(s);
        if (plan.whole()) {
            runOnce(q, kt, v, out, context, "vae decoder attention");
            context.advance(Stage.VAE_DECODE, 1, 1);
            return;
        }
        int rows = plan.rows();
        ByteBuffer qBytes = OutputReader.bytes(q);
        try (TensorBuffer qChunk = TensorBuffer.allocate(resources.env(), io.qChunk().elementType(), 1, 1, rows, d);
                TensorBuffer outChunk = TensorBuffer.allocate(resources.env(), io.output().elementType(), 1, 1,
                        rows, d);
                SessionLease lease = resources.sessions().acquire(resources.specs().forInputs(
                        GraphKeys.VAE_DECODER_ATTN_CHUNK, shapes(qChunk.tensor(), kt, v)))) {
            for (int k = 0; k < chunks; k++) {
                String where = "vae decoder attention chunk " + (k + 1) + "/" + chunks;
                context.throwIfCancelled(where);
                int start = k * rows;
                int valid = Math.min(rows, s - start);
                qChunk.copyElements(qBytes, start * d, 0, valid * d);
                if (valid < rows) {
                    qChunk.zero(valid * d, (rows - valid) * d);
                }
                try (OrtSession.Result ignored = lease.session().run(new RunCall(inputs(qChunk.tensor(), kt, v),
                        Set.of(), Map.of(io.output().name(), outChunk.tensor()), where), context)) {
                    out.copyElements(outChunk.bytes(), 0, start * d, valid * d);
                }
                context.advance(Stage.VAE_DECODE, k + 1, chunks);
            }
        }
    }

    private void runOnce(OnnxTensorLike q, OnnxTensorLike kt, OnnxTensorLike v, TensorBuffer out,
            StageContext context, String where) {
        Map<String, OnnxTensorLike> inputs = inputs(q, kt, v);
        try (SessionLease lease = resources.sessions().acquire(resources.specs().forInputs(
                GraphKeys.VAE_DECODER_ATTN_CHUNK, Shapes.of(inputs)));
                OrtSession.Result ignored = lease.session().run(new RunCall(inputs, Set.of(),
                        Map.of(io.output().name(), out.tensor()), where), context)) {
            // The result was written into the pinned output.
        }
    }

    private Map<String, OnnxTensorLike> inputs(OnnxTensorLike q, OnnxTensorLike kt, OnnxTensorLike v) {
        Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
        inputs.put(io.qChunk().name(), q);
        inputs.put(io.kt(), kt);
        inputs.put(io.v(), v);
        return inputs;
    }

    private Map<String, long[]> shapes(OnnxTensorLike q, OnnxTensorLike kt, OnnxTensorLike v) {
        return Shapes.of(inputs(q, kt, v));
    }
}
