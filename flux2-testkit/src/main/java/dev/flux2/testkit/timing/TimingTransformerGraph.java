package dev.flux2.testkit.timing;

import static dev.flux2.testkit.TensorElementType.FLOAT;
import static dev.flux2.testkit.TensorElementType.FLOAT16;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.GraphBuilder;
import dev.flux2.testkit.GraphSignatures;
import dev.flux2.testkit.Port;
import dev.flux2.testkit.SyntheticBundleSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The FLUX.2 transformer forward pass at full width (diffusers {@code Flux2Transformer2DModel}): timestep
 * embedding and shared modulations, x/context embedders, double-stream blocks (per-stream LayerNorm + modulation,
 * fused q/k/v, per-head RMSNorm, joint attention with 4-axis RoPE over [text; image], gated residuals, SwiGLU MLP),
 * single-stream blocks (one fused q/k/v/MLP projection, parallel attention and MLP), then AdaLayerNorm and the
 * output projection of the image tokens.
 *
 * <p>Precision follows the bundle's {@code float16-selective-fp32}: activations and linear layers are fp16;
 * q/k normalisation, RoPE, the split 128^−¼ scale, scores and softmax run in fp32 (docs/bundle-format.md §12).
 */
final class TimingTransformerGraph {
    private static final float ROPE_THETA = 2000f;
    private static final int ROPE_AXES = 4;
    private static final int ROPE_FREQS_PER_AXIS = TimingTransformerSpec.HEAD_DIM / ROPE_AXES / 2;
    private static final float SPLIT_SCALE = (float) Math.pow(TimingTransformerSpec.HEAD_DIM, -0.25);
    private static final float RMS_EPS = 1e-6f;
    private static final long END = Long.MAX_VALUE;

    private final TimingTransformerSpec spec;
    private final TimingWeights weights;
    private final SyntheticBundleSpec signature;
    private final GraphBuilder b;
    private final SplittableRandom rnd;
    private final int d;
    private final int m;
    private String textLength;
    private String cos;
    private String sin;

    TimingTransformerGraph(TimingTransformerSpec spec, TimingWeights weights, SyntheticBundleSpec signature) {
        this.spec = spec;
        this.weights = weights;
        this.b = new GraphBuilder(BundleGraph.TRANSFORMER, signature);
        this.rnd = new SplittableRandom(spec.seed() ^ 0x6E0_0001L);
        this.d = spec.hidden();
        this.m = spec.mlpHidden();
        this.signature = signature;
    }

    ModelProto build() {
        List<Port> inputs = GraphSignatures.inputs(BundleGraph.TRANSFORMER, signature);
        String x = b.input(port(inputs, "x"), FLOAT16);
        String xIds = b.input(port(inputs, "x_ids"), FLOAT);
        String sigma = b.input(port(inputs, "timesteps"), FLOAT);
        String ctx = b.input(port(inputs, "ctx"), FLOAT16);
        String ctxIds = b.input(port(inputs, "ctx_ids"), FLOAT);

        String temb = timestepEmbedding(sigma);
        String act = silu(temb);
        String[] modImg = chunks(linear("double_stream_modulation_img", act), 6);
        String[] modTxt = chunks(linear("double_stream_modulation_txt", act), 6);
        String[] modSingle = chunks(linear("single_stream_modulation", act), 3);

        String img = linear("x_embedder", x);
        String txt = linear("context_embedder", ctx);
        textLength = b.op("Shape", List.of(txt), GraphBuilder.attrInt("start", 1), GraphBuilder.attrInt("end", 2));
        rope(b.op("Concat", List.of(ctxIds, xIds), GraphBuilder.attrInt("axis", 1)));

        for (int i = 0; i < spec.doubleBlocks(); i++) {
            String[] streams = doubleBlock(i, img, txt, modImg, modTxt);
            img = streams[0];
            txt = streams[1];
        }
        String h = b.op("Concat", List.of(txt, img), GraphBuilder.attrInt("axis", 1));
        for (int i = 0; i < spec.singleBlocks(); i++) {
            h = singleBlock(i, h, modSingle);
        }
        String imageTokens = sliceAxis1(h, textLength, constant(END));
        String[] normOut = chunks(linear("norm_out.linear", act), 2);
        // AdaLayerNormContinuous: scale first, then shift.
        String y = modulate(layerNorm(imageTokens), normOut[1], normOut[0]);
        String pred = linear("proj_out", y);
        b.output(
                pred,
                GraphSignatures.outputs(BundleGraph.TRANSFORMER, signature).get(0));
        return b.build();
    }

    private static Port port(List<Port> ports, String name) {
        for (Port p : ports) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new IllegalStateException("transformer signature has no input '" + name + "': " + ports);
    }

    /** σ·1000 → [cos, sin] of 128 frequencies (flip_sin_to_cos) → linear, SiLU, linear. */
    private String timestepEmbedding(String sigma) {
        int half = TimingTransformerSpec.TIMESTEP_CHANNELS / 2;
        float[] freqs = new float[half];
        for (int j = 0; j < half; j++) {
            freqs[j] = (float) Math.exp(-Math.log(10000.0) * j / half);
        }
        String t = b.op("Mul", b.op("Unsqueeze", sigma, b.constLong(new long[] {1}, 1)), b.scalar(1000f));
        String args = b.op("Mul", t, b.constFloat(freqs, 1, half));
        String emb = b.op("Concat", List.of(b.op("Cos", args), b.op("Sin", args)), GraphBuilder.attrInt("axis", 1));
        return linear("time_embed.linear_2", silu(linear("time_embed.linear_1", b.cast(emb, FLOAT16))));
    }

    /** cos/sin [1,1,T,64,1] of the 4-axis RoPE: angle = id · θ^(−j/16) for 16 frequencies j per id axis. */
    private void rope(String ids) {
        int perAxis = ROPE_FREQS_PER_AXIS;
        float[] freqs = new float[perAxis];
        for (int j = 0; j < perAxis; j++) {
            freqs[j] = (float) Math.pow(ROPE_THETA, -(double) j / perAxis);
        }
        // [1,T,4,1] · [16] → [1,T,4,16] → [1,T,64]: element-wise, so the only float MatMuls stay the attention ones.
        String perId =
                b.op("Mul", b.op("Unsqueeze", ids, b.constLong(new long[] {3}, 1)), b.constFloat(freqs, perAxis));
        String angles = b.op("Reshape", perId, b.constLong(new long[] {0, 0, ROPE_AXES * perAxis}, 3));
        String axes = b.constLong(new long[] {1, 4}, 2);
        cos = b.op("Unsqueeze", b.op("Cos", angles), axes);
        sin = b.op("Unsqueeze", b.op("Sin", angles), axes);
    }

    private String[] doubleBlock(int i, String img, String txt, String[] modImg, String[] modTxt) {
        String p = TimingWeights.doublePrefix(i);
        String qkvImg = linear(p + "img.qkv", modulate(layerNorm(img), modImg[0], modImg[1]));
        String qkvTxt = linear(p + "txt.qkv", modulate(layerNorm(txt), modTxt[0], modTxt[1]));
        String q = concatSeq(rmsNorm(heads(sliceLast(qkvTxt, 0, d))), rmsNorm(heads(sliceLast(qkvImg, 0, d))));
        String k = concatSeq(rmsNorm(heads(sliceLast(qkvTxt, d, 2 * d))), rmsNorm(heads(sliceLast(qkvImg, d, 2 * d))));
        String v = concatSeq(heads(sliceLast(qkvTxt, 2 * d, 3 * d)), heads(sliceLast(qkvImg, 2 * d, 3 * d)));
        String attn = attention(q, k, v);
        String[] out = new String[2];
        String[] prefixes = {p + "img.", p + "txt."};
        String[] streams = {img, txt};
        String[][] mods = {modImg, modTxt};
        String[] attnParts = {sliceAxis1(attn, textLength, constant(END)), sliceAxis1(attn, constant(0), textLength)};
        for (int s = 0; s < 2; s++) {
            String[] mod = mods[s];
            String h = b.op("Add", streams[s], b.op("Mul", mod[2], linear(prefixes[s] + "out", attnParts[s])));
            String ff = feedForward(prefixes[s], modulate(layerNorm(h), mod[3], mod[4]));
            out[s] = b.op("Add", h, b.op("Mul", mod[5], ff));
        }
        return out;
    }

    private String singleBlock(int i, String h, String[] mod) {
        String p = TimingWeights.singlePrefix(i);
        String proj = linear(p + "linear1", modulate(layerNorm(h), mod[0], mod[1]));
        String q = rmsNorm(heads(sliceLast(proj, 0, d)));
        String k = rmsNorm(heads(sliceLast(proj, d, 2 * d)));
        String v = heads(sliceLast(proj, 2 * d, 3 * d));
        String attn = attention(q, k, v);
        String mlp = swiGlu(sliceLast(proj, 3 * d, 3 * d + 2 * m));
        String out = linear(p + "linear2", b.op("Concat", List.of(attn, mlp), GraphBuilder.attrInt("axis", -1)));
        return b.op("Add", h, b.op("Mul", mod[2], out));
    }

    private String feedForward(String prefix, String x) {
        return linear(prefix + "ff_out", swiGlu(linear(prefix + "ff_in", x)));
    }

    /** SiLU(first half) · second half of the last axis. */
    private String swiGlu(String x) {
        return b.op("Mul", silu(sliceLast(x, 0, m)), sliceLast(x, m, 2L * m));
    }

    /**
     * Joint attention over q, k (fp32 [1,H,T,128], normalised) and v (fp16): RoPE, the split scale on q and k,
     * scores and softmax in fp32, one score MatMul per head group; returns fp16 [1,T,hidden].
     */
    private String attention(String q, String k, String v) {
        String scale = b.scalar(SPLIT_SCALE);
        String qs = b.op("Mul", applyRope(q), scale);
        String ks = b.op("Mul", applyRope(k), scale);
        int group = spec.heads() / spec.headGroups();
        List<String> outputs = new ArrayList<>();
        for (int g = 0; g < spec.headGroups(); g++) {
            String qg = slice(qs, g * group, (g + 1) * group, 1);
            String kt = b.op(
                    "Transpose",
                    List.of(slice(ks, g * group, (g + 1) * group, 1)),
                    GraphBuilder.attrInts("perm", 0, 1, 3, 2));
            String probs = b.op("Softmax", List.of(b.op("MatMul", qg, kt)), GraphBuilder.attrInt("axis", -1));
            outputs.add(b.op("MatMul", b.cast(probs, FLOAT16), slice(v, g * group, (g + 1) * group, 1)));
        }
        String all = outputs.size() == 1 ? outputs.get(0) : b.op("Concat", outputs, GraphBuilder.attrInt("axis", 1));
        String tokens = b.op("Transpose", List.of(all), GraphBuilder.attrInts("perm", 0, 2, 1, 3));
        return b.op("Reshape", tokens, b.constLong(new long[] {0, 0, d}, 3));
    }

    /** Interleaved-pair rotation: (x₀, x₁) → (x₀·cos − x₁·sin, x₀·sin + x₁·cos). */
    private String applyRope(String x) {
        String pairs = b.op("Reshape", x, b.constLong(new long[] {0, 0, 0, TimingTransformerSpec.HEAD_DIM / 2, 2}, 5));
        String x0 = slice(pairs, 0, 1, 4);
        String x1 = slice(pairs, 1, 2, 4);
        String r0 = b.op("Sub", b.op("Mul", x0, cos), b.op("Mul", x1, sin));
        String r1 = b.op("Add", b.op("Mul", x0, sin), b.op("Mul", x1, cos));
        String joined = b.op("Concat", List.of(r0, r1), GraphBuilder.attrInt("axis", 4));
        return b.op("Reshape", joined, b.constLong(new long[] {0, 0, 0, TimingTransformerSpec.HEAD_DIM}, 4));
    }

    /** fp16 [1,L,hidden] → [1,H,L,128]. */
    private String heads(String x) {
        String split =
                b.op("Reshape", x, b.constLong(new long[] {0, 0, spec.heads(), TimingTransformerSpec.HEAD_DIM}, 4));
        return b.op("Transpose", List.of(split), GraphBuilder.attrInts("perm", 0, 2, 1, 3));
    }

    /** Per-head RMSNorm with a learned weight, in fp32 (returns fp32). */
    private String rmsNorm(String x16) {
        String x = b.cast(x16, FLOAT);
        String meanSquare = b.op(
                "ReduceMean",
                List.of(b.op("Mul", x, x)),
                GraphBuilder.attrInts("axes", -1),
                GraphBuilder.attrInt("keepdims", 1));
        String normed = b.op("Div", x, b.op("Sqrt", b.op("Add", meanSquare, b.scalar(RMS_EPS))));
        return b.op(
                "Mul", normed, b.constFloat(nearOne(TimingTransformerSpec.HEAD_DIM), TimingTransformerSpec.HEAD_DIM));
    }

    /** LayerNorm over the last axis without affine parameters (scale fixed to 1), fp16. */
    private String layerNorm(String x) {
        float[] ones = new float[d];
        Arrays.fill(ones, 1f);
        return b.op("LayerNormalization", x, b.cast(b.constFloat(ones, d), FLOAT16));
    }

    /** x·(1 + scale) + shift. */
    private String modulate(String x, String shift, String scale) {
        String onePlus = b.op("Add", scale, b.cast(b.scalar(1f), FLOAT16));
        return b.op("Add", b.op("Mul", x, onePlus), shift);
    }

    private String silu(String x) {
        return b.op("Mul", x, b.op("Sigmoid", x));
    }

    private String linear(String layer, String input) {
        return weights.get(layer).apply(b, input, spec.accuracyLevel());
    }

    /** Splits the last axis of a [1, C] modulation vector into {@code parts} equal chunks. */
    private String[] chunks(String x, int parts) {
        String[] out = new String[parts];
        for (int i = 0; i < parts; i++) {
            out[i] = sliceLast(x, (long) i * d, (long) (i + 1) * d);
        }
        return out;
    }

    private String concatSeq(String text, String image) {
        return b.op("Concat", List.of(text, image), GraphBuilder.attrInt("axis", 2));
    }

    private String sliceLast(String x, long start, long end) {
        return slice(x, start, end, -1);
    }

    private String slice(String x, long start, long end, long axis) {
        return b.op("Slice", x, constant(start), constant(end), constant(axis));
    }

    private String sliceAxis1(String x, String start, String end) {
        return b.op("Slice", x, start, end, constant(1));
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
}
