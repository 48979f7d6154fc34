package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.api.InferenceException;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.bundle.TextEncoderIo;
import dev.flux2.onnx.bundle.TextSettings;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.StageContext;
import dev.flux2.spi.TokenizedPrompt;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runs the text encoder: ids, and the mask and position ids when the graph takes them, [1, text_seq_len] in the
 * integer type the graph declares → context [1, text_seq_len, context_dim] in the graph's float type, sizes from
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
        TensorBuffer ctx = resources.allocate(io.ctx().elementType(), 1, length, text.contextDim());
        try (ResourceScope scope = new ResourceScope()) {
            Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
            inputs.put(io.inputIds().name(), tokenTensor(scope, io.inputIds(), tokens.inputIds()));
            io.attentionMask().ifPresent(m -> inputs.put(m.name(), tokenTensor(scope, m, tokens.attentionMask())));
            io.positionIds().ifPresent(p -> inputs.put(p.name(), tokenTensor(scope, p, positions(length))));
            try (SessionLease lease = resources
                            .sessions()
                            .acquire(resources.specs().forInputs(GraphKeys.TEXT_ENCODER, Shapes.of(inputs)));
                    OrtSession.Result ignored = lease.session()
                            .run(
                                    new RunCall(
                                            inputs, Set.of(), Map.of(io.ctx().name(), ctx.tensor()), "text encoder"),
                                    context)) {
                postProcess(ctx, tokens.attentionMask(), text);
            }
            int bad = ctx.firstNonFinite();
            if (bad >= 0) {
                throw new InferenceException("the text encoder's context holds non-finite values (NaN or infinity;"
                        + " the first at index " + bad + " of " + ctx.elements() + ", token " + bad / text.contextDim()
                        + "): the model's weights or the runtime produced them, so the generation was stopped instead"
                        + " of returning a wrong image (check the model files with 'flux2 verify')");
            }
            return new OnnxTextEmbedding(tokens, ctx);
        } catch (RuntimeException e) {
            ctx.close();
            throw e;
        }
    }

    private OnnxTensorLike tokenTensor(ResourceScope scope, TensorSignature input, long[] values) {
        TensorBuffer t = scope.add(resources.allocate(input.elementType(), 1, values.length));
        t.writeLongs(values);
        return t.tensor();
    }

    /** Positions 0..L−1, what the reference's text model uses when called without position ids. */
    private static long[] positions(int length) {
        long[] p = new long[length];
        for (int i = 0; i < length; i++) {
            p[i] = i;
        }
        return p;
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
