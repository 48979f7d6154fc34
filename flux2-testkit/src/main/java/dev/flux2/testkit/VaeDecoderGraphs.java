package dev.flux2.testkit;

import static dev.flux2.testkit.GraphBuilder.attrInt;
import static dev.flux2.testkit.GraphBuilder.attrInts;
import static dev.flux2.testkit.GraphBuilder.attrString;
import static dev.flux2.testkit.TensorElementType.FLOAT;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.List;

/**
 * The VAE decoder graphs (docs/bundle-format.md §10): the split chain (pre-attention, attention chunk, post stages
 * 0..3), the single post-attention graph (post stages 0..3 in one) and the unified decoder (everything in one). The
 * math is documented on {@link SyntheticReference}. Each stage's body is written once; a merged graph chains the bodies
 * and rounds the tensor between two of them to its activation type, exactly where the split graphs' outputs and inputs
 * round it, so every layout computes the same function.
 */
final class VaeDecoderGraphs {
    private static final int CR = SyntheticDims.RESIDUAL_CHANNELS;

    private final SyntheticBundleSpec spec;
    private final VaeWeights w;

    VaeDecoderGraphs(SyntheticBundleSpec spec, VaeWeights w) {
        this.spec = spec;
        this.w = w;
    }

    /** The pre stage's four results. */
    private record Pre(String residual, String q, String kt, String v) {}

    /** BN de-normalisation, unpatchify (DepthToSpace CRD), 1×1 conv → residual; q, kᵀ, v from its tokens. */
    ModelProto pre() {
        BundleGraph g = BundleGraph.VAE_DECODER_PRE;
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> out = GraphSignatures.outputs(g, spec);
        String z = b.input(GraphSignatures.inputs(g, spec).get(0), FLOAT);
        String residual = residualBody(b, z);
        b.output(residual, out.get(0));
        // Attention works on the residual the graph outputs (rounded to its type), as the real graph does.
        Pre pre = attentionInputsBody(b, b.cast(out.get(0).name(), FLOAT));
        b.output(pre.q(), out.get(1));
        b.output(pre.kt(), out.get(2));
        b.output(pre.v(), out.get(3));
        return b.build();
    }

    private String residualBody(GraphBuilder b, String z) {
        String u = b.op(
                "Add", b.op("Mul", z, b.constFloat(w.bnStd(), 1, 128, 1, 1)), b.constFloat(w.bnMean(), 1, 128, 1, 1));
        String patches = b.op("DepthToSpace", List.of(u), attrInt("blocksize", 2), attrString("mode", "CRD"));
        return conv(b, patches, w.patchConv());
    }

    private Pre attentionInputsBody(GraphBuilder b, String residual) {
        int hd = spec.vaeHeadDim();
        String tokens = b.op(
                "Transpose",
                List.of(b.op("Reshape", residual, b.constLong(new long[] {1, 1, CR, -1}, 4))),
                attrInts("perm", 0, 1, 3, 2));
        String scale = b.scalar((float) Math.pow(hd, -0.25));
        String q = b.op("Mul", b.op("MatMul", tokens, b.constFloat(w.query(), CR, hd)), scale);
        String k = b.op("Mul", b.op("MatMul", tokens, b.constFloat(w.key(), CR, hd)), scale);
        String kt = b.op("Transpose", List.of(k), attrInts("perm", 0, 1, 3, 2));
        String v = b.op("MatMul", tokens, b.constFloat(w.value(), CR, hd));
        return new Pre(residual, q, kt, v);
    }

    /** softmax(q·kᵀ)·v over the last axis, in fp32 between the inputs and output. */
    ModelProto attentionChunk() {
        BundleGraph g = BundleGraph.VAE_DECODER_ATTN_CHUNK;
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> in = GraphSignatures.inputs(g, spec);
        String q = b.input(in.get(0), FLOAT);
        String kt = b.input(in.get(1), FLOAT);
        String v = b.input(in.get(2), FLOAT);
        b.output(attentionBody(b, q, kt, v), GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    private static String attentionBody(GraphBuilder b, String q, String kt, String v) {
        String scores = b.op("Softmax", List.of(b.op("MatMul", q, kt)), attrInt("axis", -1));
        return b.op("MatMul", scores, v);
    }

    ModelProto postStage(int stage) {
        BundleGraph g = BundleGraph.postStage(stage);
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> in = GraphSignatures.inputs(g, spec);
        String y;
        if (stage == 0) {
            StageZeroInputs s0 = stageZeroInputs(b, in);
            y = stage0(b, s0.residual(), s0.attention());
        } else {
            y = laterStageBody(b, stage, b.input(in.get(0), FLOAT));
        }
        b.output(y, GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    /** Post stages 0..3 in one graph, rounding between them as the split stages' outputs would. */
    ModelProto singlePost() {
        BundleGraph g = BundleGraph.VAE_DECODER_POST;
        GraphBuilder b = new GraphBuilder(g, spec);
        StageZeroInputs s0 = stageZeroInputs(b, GraphSignatures.inputs(g, spec));
        b.output(
                postChain(b, s0.residual(), s0.attention(), spec.activationType(g)),
                GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    /** The whole decoder in one graph, rounding wherever the split graphs hand a tensor over. */
    ModelProto unified() {
        BundleGraph g = BundleGraph.VAE_DECODER;
        GraphBuilder b = new GraphBuilder(g, spec);
        TensorElementType t = spec.activationType(g);
        String z = b.input(GraphSignatures.inputs(g, spec).get(0), FLOAT);
        String residual = b.roundTo(residualBody(b, z), t);
        Pre pre = attentionInputsBody(b, residual);
        String attention =
                b.roundTo(attentionBody(b, b.roundTo(pre.q(), t), b.roundTo(pre.kt(), t), b.roundTo(pre.v(), t)), t);
        b.output(
                postChain(b, residual, attention, t),
                GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    private String postChain(GraphBuilder b, String residual, String attention, TensorElementType t) {
        String x = b.roundTo(stage0(b, residual, attention), t);
        x = b.roundTo(laterStageBody(b, 1, x), t);
        x = b.roundTo(laterStageBody(b, 2, x), t);
        return laterStageBody(b, 3, x);
    }

    /** The first post graph's two inputs, by name (their order depends on the spec). */
    private record StageZeroInputs(String residual, String attention) {}

    private static StageZeroInputs stageZeroInputs(GraphBuilder b, List<Port> in) {
        String residual = null;
        String attention = null;
        for (Port p : in) {
            String value = b.input(p, FLOAT);
            if (p.name().equals(TensorNames.VAE_RESIDUAL)) {
                residual = value;
            } else {
                attention = value;
            }
        }
        return new StageZeroInputs(residual, attention);
    }

    private String laterStageBody(GraphBuilder b, int stage, String x) {
        switch (stage) {
            case 1:
                return conv(b, upsample(b, x, 2), w.stage1());
            case 2:
                return b.op("Add", x, conv(b, silu(b, x), w.stage2()));
            default:
                return b.op("Tanh", conv(b, x, w.stage3()));
        }
    }

    /** Attention tokens back to NCHW, 1×1 projection plus residual, SiLU, 1×1 conv, nearest ×4. */
    private String stage0(GraphBuilder b, String residual, String attn) {
        int hd = spec.vaeHeadDim();
        String channelsFirst = b.op("Transpose", List.of(attn), attrInts("perm", 0, 1, 3, 2));
        String spatial = b.op(
                "Slice",
                b.op("Shape", residual),
                b.constLong(new long[] {2}, 1),
                b.constLong(new long[] {4}, 1),
                b.constLong(new long[] {0}, 1));
        String shape = b.op("Concat", List.of(b.constLong(new long[] {1, hd}, 2), spatial), attrInt("axis", 0));
        String nchw = b.op("Reshape", channelsFirst, shape);
        String o = b.op("Add", conv(b, nchw, w.attnProj()), residual);
        String c = conv(b, silu(b, o), w.stage0());
        return upsample(b, c, 4);
    }

    private static String silu(GraphBuilder b, String x) {
        return b.op("Mul", x, b.op("Sigmoid", x));
    }

    private static String upsample(GraphBuilder b, String x, int factor) {
        return b.op(
                "Resize",
                List.of(x, "", b.constFloat(new float[] {1, 1, factor, factor}, 4)),
                attrString("mode", "nearest"),
                attrString("coordinate_transformation_mode", "asymmetric"),
                attrString("nearest_mode", "floor"));
    }

    static String conv(GraphBuilder b, String x, ConvLayer layer) {
        int k = layer.kernel();
        String wName = b.constFloat(layer.weight(), layer.out(), layer.in(), k, k);
        String bName = b.constFloat(layer.bias(), layer.out());
        int pad = k / 2;
        return b.op(
                "Conv", List.of(x, wName, bName), attrInts("kernel_shape", k, k), attrInts("pads", pad, pad, pad, pad));
    }
}
