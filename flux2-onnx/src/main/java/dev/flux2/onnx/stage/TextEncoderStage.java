package dev.flux2.onnx.stage;

import ai.onnxruntime.OrtSession;
import dev.flux2.onnx.config.GraphKeys;
import dev.flux2.onnx.config.TextSettings;
import dev.flux2.onnx.graph.TextEncoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TokenizedPrompt;
import java.util.Map;
import java.util.Set;

/**
 * Runs the text encoder: int64 ids and mask [1, text_seq_len] → context [1, text_seq_len, context_dim], sizes from
 * the config. The context is written straight into a native tensor the embedding keeps (a pinned output), then
 * optionally post-processed as the config asks ({@code zero_padded_context}, {@code context_clip}).
 * Thread-safe (no mutable state).
 */
public final class TextEncoderStage {
    private final StageResources resources;

    /** @param resources the backend's resources */
    public TextEncoderStage(StageResources resources) {
        this.resources = resources;
    }

    /**
     * @param tokens ids and mask of exactly text_seq_len tokens
     * @param context the generation's context
     * @return the embedding; the caller closes it
     */
    public OnnxTextEmbedding encode(TokenizedPrompt tokens, StageContext context) {
        TextSettings text = resources.config().text();
        int length = text.sequenceLength();
        if (tokens.inputIds().length != length) {
            throw new IllegalArgumentException("the text encoder takes exactly " + length + " tokens (text_seq_len), "
                    + "got " + tokens.inputIds().length);
        }
        TextEncoderIo io = resources.io().textEncoder();
        long[] tokenShape = {1, length};
        TensorBuffer ctx = TensorBuffer.allocate(resources.env(), io.ctx().elementType(), 1, length,
                text.contextDim());
        try (TensorBuffer ids = TensorBuffer.allocate(resources.env(), io.inputIds().elementType(), tokenShape);
                TensorBuffer mask = TensorBuffer.allocate(resources.env(), io.attentionMask().elementType(),
                        tokenShape)) {
            ids.writeLongs(tokens.inputIds());
            mask.writeLongs(tokens.attentionMask());
            String idsName = io.inputIds().name();
            String maskName = io.attentionMask().name();
            try (SessionLease lease = resources.sessions().acquire(resources.specs().forInputs(
                    GraphKeys.TEXT_ENCODER, Map.of(idsName, tokenShape, maskName, tokenShape)));
                    OrtSession.Result ignored = lease.session().run(new RunCall(
                            Map.of(idsName, ids.tensor(), maskName, mask.tensor()), Set.of(),
                            Map.of(io.ctx().name(), ctx.tensor()), "text encoder"), context)) {
                postProcess(ctx, tokens.attentionMask(), text);
            }
            return new OnnxTextEmbedding(tokens, ctx);
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    private static void postProcess(TensorBuffer ctx, long[] mask, TextSettings text) {
        int dim = text.contextDim();
        if (text.zeroPaddedContext()) {
            for (int row = 0; row < mask.length; row++) {
                if (mask[row] == 0) {
                    ctx.zero(row * dim, dim);
                }
            }
        }
        float clip = text.contextClip();
        if (clip > 0) {
            float[] row = new float[dim];
            for (int r = 0; r < mask.length; r++) {
                ctx.readFloats(r * dim, row, 0, dim);
                for (int i = 0; i < dim; i++) {
                    row[i] = Math.max(-clip, Math.min(clip, row[i]));
                }
                ctx.writeFloats(row, 0, dim, r * dim);
            }
        }
    }
}
