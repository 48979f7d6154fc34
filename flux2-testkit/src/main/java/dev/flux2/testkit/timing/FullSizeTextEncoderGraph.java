package dev.flux2.testkit.timing;

import static dev.flux2.testkit.TensorElementType.FLOAT;
import static dev.flux2.testkit.TensorElementType.FLOAT16;
import static dev.flux2.testkit.TensorElementType.INT64;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.ExternalDataWriter;
import dev.flux2.testkit.ExternalRef;
import dev.flux2.testkit.Fp16;
import dev.flux2.testkit.GraphBuilder;
import dev.flux2.testkit.GraphSignatures;
import dev.flux2.testkit.Port;
import dev.flux2.testkit.SyntheticBundleSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A Qwen3 decoder at full width as FLUX.2's text encoder (input_ids, attention_mask → ctx), with random weights: the
 * fp16 token embedding ({@code Gather}), then per layer RMSNorm, q/k/v projections, per-head q/k RMSNorm, rotary
 * embedding (θ = 10⁶, rotate-half), grouped-query attention under a causal and padding mask, the output projection,
 * RMSNorm and the SwiGLU MLP, with residuals; the context is the chosen layers' outputs concatenated
 * ({@link TextEncoderShape#outputLayers}). Every projection is a bias-free {@code MatMulNBits} (4-bit, block 16,
 * fp16 scales, accuracy level 0 as the seed config says); activations are fp16, norms, RoPE, scores and softmax fp32.
 * The graph computes nothing meaningful: it does the same work per token as the real one, for timing.
 */
final class FullSizeTextEncoderGraph {
    private static final float ROPE_THETA = 1_000_000f;
    private static final float RMS_EPS = 1e-6f;
    private static final float MASKED = -10_000f;
    private static final int BLOCK = 16;
    private static final int ACCURACY_LEVEL = 0;

    private final TextEncoderShape shape;
    private final SyntheticBundleSpec signature;
    private final GraphBuilder b;
    private final SplittableRandom rnd;
    private final List<Q4Linear> linears = new ArrayList<>();
    private String cos;
    private String sin;
    private String bias;

    private FullSizeTextEncoderGraph(TextEncoderShape shape, SyntheticBundleSpec signature, long seed) {
        this.shape = shape;
        this.signature = signature;
        this.b = new GraphBuilder(BundleGraph.TEXT_ENCODER, signature);
        this.rnd = new SplittableRandom(seed);
    }

    /**
     * Writes the weights to {@code ext} (projection codes to shard 0; embedding, scales and zero points to shard 1)
     * and builds the graph.
     *
     * @param shape the decoder's shape
     * @param signature the bundle whose text-encoder signature the graph declares
     * @param seed weight seed
     * @param ext the text encoder's shards
     * @return the graph
     */
    static ModelProto write(TextEncoderShape shape, SyntheticBundleSpec signature, long seed, ExternalDataWriter ext) {
        return new FullSizeTextEncoderGraph(shape, signature, seed).build(ext);
    }

    private ModelProto build(ExternalDataWriter ext) {
        List<Port> in = GraphSignatures.inputs(BundleGraph.TEXT_ENCODER, signature);
        String ids = b.input(in.get(0), INT64);
        String mask = b.input(in.get(1), FLOAT);
        int d = shape.hidden();
        ExternalRef table = ext.append(1, halfBytes((long) shape.vocabulary() * d, 1f));
        String embedding = b.external("model.embed_tokens.weight", FLOAT16, table, shape.vocabulary(), d);
        String h = b.op("Gather", embedding, ids);

        String length = b.op("Shape", List.of(ids), GraphBuilder.attrInt("start", 1), GraphBuilder.attrInt("end", 2));
        String positions = b.cast(
                b.op("Range", b.constLong(new long[] {0}), b.op("Squeeze", length), b.constLong(new long[] {1})),
                FLOAT);
        ropeTables(positions);
        maskBias(positions, mask);

        List<String> outputs = new ArrayList<>();
        for (int layer = 1; layer <= shape.layers(); layer++) {
            h = layer(layer, h, ext);
            if (shape.outputLayers().contains(layer)) {
                outputs.add(h);
            }
        }
        String ctx = outputs.size() == 1 ? outputs.get(0) : b.op("Concat", outputs, GraphBuilder.attrInt("axis", -1));
        b.output(
                ctx,
                GraphSignatures.outputs(BundleGraph.TEXT_ENCODER, signature).get(0));
        return b.build();
    }

    private String layer(int layer, String h, ExternalDataWriter ext) {
        String p = "model.layers." + (layer - 1) + ".";
        int d = shape.hidden();
        int hd = shape.headDim();
        int q = shape.heads() * hd;
        int kv = shape.kvHeads() * hd;
        String x = rmsNorm(h, d);
        String query = rope(headNorm(heads(linear(ext, p + "self_attn.q_proj", x, d, q), shape.heads())));
        String key = rope(headNorm(heads(linear(ext, p + "self_attn.k_proj", x, d, kv), shape.kvHeads())));
        String value = heads(linear(ext, p + "self_attn.v_proj", x, d, kv), shape.kvHeads());
        String attn = attention(query, repeatKv(key), repeatKv(value));
        h = b.op("Add", h, linear(ext, p + "self_attn.o_proj", attn, q, d));
        String y = rmsNorm(h, d);
        String gate = linear(ext, p + "mlp.gate_proj", y, d, shape.mlp());
        String up = linear(ext, p + "mlp.up_proj", y, d, shape.mlp());
        String act = b.op("Mul", b.op("Mul", gate, b.op("Sigmoid", gate)), up);
        return b.op("Add", h, linear(ext, p + "mlp.down_proj", act, shape.mlp(), d));
    }

    /** softmax(q·kᵀ/√hd + causal and padding bias)·v over fp32 q, k [1,H,L,hd] and fp16 v; returns fp16 [1,L,H·hd]. */
    private String attention(String q, String k, String v) {
        String kt = b.op("Transpose", List.of(k), GraphBuilder.attrInts("perm", 0, 1, 3, 2));
        String scores = b.op("Mul", b.op("MatMul", q, kt), b.scalar((float) (1 / Math.sqrt(shape.headDim()))));
        String probs = b.op("Softmax", List.of(b.op("Add", scores, bias)), GraphBuilder.attrInt("axis", -1));
        String out = b.op("MatMul", b.cast(probs, FLOAT16), v);
        String tokens = b.op("Transpose", List.of(out), GraphBuilder.attrInts("perm", 0, 2, 1, 3));
        return b.op("Reshape", tokens, b.constLong(new long[] {0, 0, (long) shape.heads() * shape.headDim()}, 3));
    }

    /** [1,KV,L,hd] → [1,H,L,hd], each key/value head serving H/KV query heads. */
    private String repeatKv(String x) {
        int group = shape.heads() / shape.kvHeads();
        if (group == 1) {
            return x;
        }
        String five = b.op("Unsqueeze", x, b.constLong(new long[] {2}, 1));
        String shapeOf = b.op("Shape", x);
        String target = b.op(
                "Concat",
                List.of(slice(shapeOf, 0, 2), b.constLong(new long[] {group}, 1), slice(shapeOf, 2, 4)),
                GraphBuilder.attrInt("axis", 0));
        String expanded = b.op("Expand", five, target);
        return b.op("Reshape", expanded, b.constLong(new long[] {0, shape.heads(), -1, shape.headDim()}, 4));
    }

    private String slice(String x, long start, long end) {
        return b.op("Slice", x, constant(start), constant(end), constant(0));
    }

    /** fp16 [1,L,n·hd] → [1,n,L,hd]. */
    private String heads(String x, int n) {
        String split = b.op("Reshape", x, b.constLong(new long[] {0, 0, n, shape.headDim()}, 4));
        return b.op("Transpose", List.of(split), GraphBuilder.attrInts("perm", 0, 2, 1, 3));
    }

    /** Per-head RMSNorm (Qwen3's q_norm, k_norm) in fp32; returns fp32. */
    private String headNorm(String x16) {
        return rmsNormFp32(b.cast(x16, FLOAT), shape.headDim());
    }

    /** RMSNorm over the last axis in fp32, returning fp16. */
    private String rmsNorm(String x16, int width) {
        return b.cast(rmsNormFp32(b.cast(x16, FLOAT), width), FLOAT16);
    }

    private String rmsNormFp32(String x, int width) {
        String meanSquare = b.op(
                "ReduceMean",
                List.of(b.op("Mul", x, x)),
                GraphBuilder.attrInts("axes", -1),
                GraphBuilder.attrInt("keepdims", 1));
        String normed = b.op("Div", x, b.op("Sqrt", b.op("Add", meanSquare, b.scalar(RMS_EPS))));
        return b.op("Mul", normed, b.constFloat(nearOne(width), width));
    }

    /** Rotate-half RoPE on fp32 [1,n,L,hd]: x·cos + [−x₂, x₁]·sin. */
    private String rope(String x) {
        long half = shape.headDim() / 2;
        String x1 = b.op("Slice", x, constant(0), constant(half), constant(-1));
        String x2 = b.op("Slice", x, constant(half), constant(2 * half), constant(-1));
        String rotated = b.op("Concat", List.of(b.op("Neg", x2), x1), GraphBuilder.attrInt("axis", -1));
        return b.op("Add", b.op("Mul", x, cos), b.op("Mul", rotated, sin));
    }

    /** cos, sin [1,1,L,hd] of position · θ^(−2j/hd), the hd/2 frequencies repeated twice. */
    private void ropeTables(String positions) {
        int half = shape.headDim() / 2;
        float[] freqs = new float[half];
        for (int j = 0; j < half; j++) {
            freqs[j] = (float) Math.pow(ROPE_THETA, -2.0 * j / shape.headDim());
        }
        String angles = b.op("Mul", b.op("Unsqueeze", positions, constant(1)), b.constFloat(freqs, 1, half));
        String both = b.op("Concat", List.of(angles, angles), GraphBuilder.attrInt("axis", -1));
        String axes = b.constLong(new long[] {0, 1}, 2);
        cos = b.op("Unsqueeze", b.op("Cos", both), axes);
        sin = b.op("Unsqueeze", b.op("Sin", both), axes);
    }

    /** bias [1,1,L,L]: MASKED where the key is after the query or is padding, else 0. */
    private void maskBias(String positions, String mask) {
        String keyAfterQuery =
                b.op("Greater", b.op("Unsqueeze", positions, constant(0)), b.op("Unsqueeze", positions, constant(1)));
        String causal = b.op("Where", keyAfterQuery, b.scalar(MASKED), b.scalar(0f));
        String padding = b.op(
                "Mul",
                b.op("Sub", b.scalar(1f), b.op("Unsqueeze", mask, b.constLong(new long[] {1, 2}, 2))),
                b.scalar(MASKED));
        bias = b.op("Add", b.op("Unsqueeze", causal, b.constLong(new long[] {0, 1}, 2)), padding);
    }

    private String linear(ExternalDataWriter ext, String name, String input, int k, int n) {
        Q4Linear l = Q4Linear.write(ext, name, k, n, BLOCK, rnd.split());
        linears.add(l);
        return l.apply(b, input, ACCURACY_LEVEL);
    }

    private String constant(long value) {
        return b.constLong(new long[] {value}, 1);
    }

    private float[] nearOne(int n) {
        float[] w = new float[n];
        for (int i = 0; i < n; i++) {
            w[i] = (float) (0.9 + 0.2 * rnd.nextDouble());
        }
        return w;
    }

    /** Random fp16 values in [−range, range), little-endian. */
    private byte[] halfBytes(long count, float range) {
        byte[] out = new byte[Math.toIntExact(count * 2)];
        for (int i = 0; i < out.length; i += 2) {
            short h = Fp16.fromFloat((float) ((rnd.nextDouble() * 2 - 1) * range));
            out[i] = (byte) h;
            out[i + 1] = (byte) (h >>> 8);
        }
        return out;
    }
}
