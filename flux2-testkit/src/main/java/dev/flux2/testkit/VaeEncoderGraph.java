package dev.flux2.testkit;

import static dev.flux2.testkit.GraphBuilder.attrInt;
import static dev.flux2.testkit.GraphBuilder.attrInts;
import static dev.flux2.testkit.TensorElementType.FLOAT;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.List;

/**
 * The synthetic VAE encoder: 8×8 average pooling, 1×1 conv 3 → 32, channel-major 2×2 patchify to 128 channels
 * (the inverse of the decoder's unpatchify) and BN normalisation with the decoder's statistics.
 */
final class VaeEncoderGraph {
    private VaeEncoderGraph() {}

    static ModelProto build(SyntheticBundleSpec spec, VaeWeights w) {
        BundleGraph g = BundleGraph.VAE_ENCODER;
        GraphBuilder b = new GraphBuilder(g, spec);
        String image = b.input(GraphSignatures.inputs(g, spec).get(0), FLOAT);
        String pooled = b.op("AveragePool", List.of(image), attrInts("kernel_shape", 8, 8), attrInts("strides", 8, 8));
        String features = VaeDecoderGraphs.conv(b, pooled, w.encoder());
        String s2d = b.op("SpaceToDepth", List.of(features), attrInt("blocksize", 2));
        String z = b.op("Gather", List.of(s2d, b.constLong(patchifyOrder(), 128)), attrInt("axis", 1));
        String normalised = b.op(
                "Div", b.op("Sub", z, b.constFloat(w.bnMean(), 1, 128, 1, 1)), b.constFloat(w.bnStd(), 1, 128, 1, 1));
        b.output(normalised, GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    /**
     * SpaceToDepth puts offset (dr, dc) of channel c at (2·dr + dc)·32 + c; the real patchify (and our
     * unpatchify, DepthToSpace CRD) uses 4·c + 2·dr + dc.
     */
    private static long[] patchifyOrder() {
        int p = SyntheticDims.PATCH_CHANNELS;
        long[] order = new long[4 * p];
        for (int c = 0; c < p; c++) {
            for (int off = 0; off < 4; off++) {
                order[4 * c + off] = (long) off * p + c;
            }
        }
        return order;
    }
}
