package dev.flux2.testkit;

import static dev.flux2.testkit.GraphBuilder.attrInt;
import static dev.flux2.testkit.GraphBuilder.attrInts;
import static dev.flux2.testkit.GraphBuilder.attrString;
import static dev.flux2.testkit.TensorElementType.FLOAT;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.List;

/**
 * The split VAE decoder chain: pre-attention, attention chunk and post stages 0..3 (onnx-bundle.md §8); the
 * math is documented on {@link SyntheticReference}.
 */
final class VaeDecoderGraphs {
    private static final int CR = SyntheticDims.RESIDUAL_CHANNELS;

    private final SyntheticBundleSpec spec;
    private final VaeWeights w;

    VaeDecoderGraphs(SyntheticBundleSpec spec, VaeWeights w) {
        this.spec = spec;
        this.w = w;
    }

    /** BN de-normalisation, unpatchify (DepthToSpace CRD), 1×1 conv → residual; q, kᵀ, v from its tokens. */
    ModelProto pre() {
        BundleGraph g = BundleGraph.VAE_DECODER_PRE;
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> out = GraphSignatures.outputs(g, spec);
        int hd = spec.vaeHeadDim();
        String z = b.input(GraphSignatures.inputs(g, spec).get(0), FLOAT);
        String u = b.op("Add", b.op("Mul", z, b.constFloat(w.bnStd(), 1, 128, 1, 1)),
                b.constFloat(w.bnMean(), 1, 128, 1, 1));
        String patches = b.op("DepthToSpace", List.of(u), attrInt("blocksize", 2), attrString("mode", "CRD"));
        String residual = conv(b, patches, w.patchConv());
        b.output(residual, out.get(0));
        // Attention works on the fp16 residual the graph outputs, as the real fp16 graph does.
        String res16 = b.cast(out.get(0).name(), FLOAT);
        String tokens = b.op("Transpose", List.of(b.op("Reshape", res16, b.constLong(new long[] {1, 1, CR, -1}, 4))),
                attrInts("perm", 0, 1, 3, 2));
        String scale = b.scalar((float) Math.pow(hd, -0.25));
        String q = b.op("Mul", b.op("MatMul", tokens, b.constFloat(w.query(), CR, hd)), scale);
        String k = b.op("Mul", b.op("MatMul", tokens, b.constFloat(w.key(), CR, hd)), scale);
        String kt = b.op("Transpose", List.of(k), attrInts("perm", 0, 1, 3, 2));
        String v = b.op("MatMul", tokens, b.constFloat(w.value(), CR, hd));
        b.output(q, out.get(1));
        b.output(kt, out.get(2));
        b.output(v, out.get(3));
        return b.build();
    }

    /** softmax(q·kᵀ)·v over the last axis, in fp32 between the fp16 inputs and output. */
    ModelProto attentionChunk() {
        BundleGraph g = BundleGraph.VAE_DECODER_ATTN_CHUNK;
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> in = GraphSignatures.inputs(g, spec);
        String q = b.input(in.get(0), FLOAT);
        String kt = b.input(in.get(1), FLOAT);
        String v = b.input(in.get(2), FLOAT);
        String scores = b.op("Softmax", List.of(b.op("MatMul", q, kt)), attrInt("axis", -1));
        b.output(b.op("MatMul", scores, v), GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    ModelProto postStage(int stage) {
        BundleGraph g = BundleGraph.postStage(stage);
        GraphBuilder b = new GraphBuilder(g, spec);
        List<Port> in = GraphSignatures.inputs(g, spec);
        String x = b.input(in.get(0), FLOAT);
        String y;
        switch (stage) {
            case 0:
                y = stage0(b, x, b.input(in.get(1), FLOAT));
                break;
            case 1:
                y = conv(b, upsample(b, x, 2), w.stage1());
                break;
            case 2:
                y = b.op("Add", x, conv(b, silu(b, x), w.stage2()));
                break;
            default:
                y = b.op("Tanh", conv(b, x, w.stage3()));
                break;
        }
        b.output(y, GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    /** Attention tokens back to NCHW, 1×1 projection plus residual, SiLU, 1×1 conv, nearest ×4. */
    private String stage0(GraphBuilder b, String residual, String attn) {
        int hd = spec.vaeHeadDim();
        String channelsFirst = b.op("Transpose", List.of(attn), attrInts("perm", 0, 1, 3, 2));
        String spatial = b.op("Slice", b.op("Shape", residual), b.constLong(new long[] {2}, 1),
                b.constLong(new long[] {4}, 1), b.constLong(new long[] {0}, 1));
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
        return b.op("Resize", List.of(x, "", b.constFloat(new float[] {1, 1, factor, factor}, 4)),
                attrString("mode", "nearest"), attrString("coordinate_transformation_mode", "asymmetric"),
                attrString("nearest_mode", "floor"));
    }

    static String conv(GraphBuilder b, String x, ConvLayer layer) {
        int k = layer.kernel();
        String wName = b.constFloat(layer.weight(), layer.out(), layer.in(), k, k);
        String bName = b.constFloat(layer.bias(), layer.out());
        int pad = k / 2;
        return b.op("Conv", List.of(x, wName, bName), attrInts("kernel_shape", k, k),
                attrInts("pads", pad, pad, pad, pad));
    }
}
