package dev.flux2.testkit;

import static dev.flux2.testkit.TensorElementType.FLOAT;
import static dev.flux2.testkit.TensorElementType.INT64;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.List;

/**
 * The synthetic text encoder: per position l with id t and mask m (see {@link SyntheticReference#textContext}):
 * features from (t mod 97)/97, (t mod 89)/89, ((t div 97) mod 61)/61 and 0.05·l through a sine, masked, then a
 * MatMulNBits (K = F → D, F = {@link SyntheticBundleSpec#textFeatures()}), plus m·maskTerm + bias.
 */
final class TextEncoderGraph {
    private TextEncoderGraph() {}

    static ModelProto build(SyntheticBundleSpec spec, TextEncoderWeights w, NBitsTensors q4) {
        GraphBuilder b = new GraphBuilder(BundleGraph.TEXT_ENCODER, spec);
        List<Port> in = GraphSignatures.inputs(BundleGraph.TEXT_ENCODER, spec);
        String ids = b.input(in.get(0), INT64);
        String mask = b.input(in.get(1), FLOAT);
        int f = spec.textFeatures();
        String last = b.constLong(new long[] {-1}, 1);

        String a = idFeature(b, ids, 97);
        String bb = idFeature(b, ids, 89);
        String high = b.op("Div", ids, b.constLong(new long[] {97}));
        String c = idFeature(b, high, 61);
        String positions;
        if (spec.has(BundleVariant.TEXT_POSITION_IDS)) {
            positions = b.input(in.get(2), FLOAT);
        } else {
            String length = b.op(
                    "Gather",
                    List.of(b.op("Shape", ids), b.constLong(new long[] {1})),
                    GraphBuilder.attrInt("axis", 0));
            positions = b.cast(b.op("Range", b.constLong(new long[] {0}), length, b.constLong(new long[] {1})), FLOAT);
        }
        String pos = b.op("Mul", positions, b.scalar(TextEncoderWeights.POSITION_STEP));

        float[] p = w.featureProjection();
        String arg = b.op("Mul", b.op("Unsqueeze", a, last), b.constFloat(row(p, 0, f), f));
        arg = b.op("Add", arg, b.op("Mul", b.op("Unsqueeze", bb, last), b.constFloat(row(p, 1, f), f)));
        arg = b.op("Add", arg, b.op("Mul", b.op("Unsqueeze", c, last), b.constFloat(row(p, 2, f), f)));
        arg = b.op("Add", arg, b.op("Mul", b.op("Unsqueeze", pos, last), b.constFloat(row(p, 3, f), f)));
        arg = b.op("Add", arg, b.constFloat(row(p, 4, f), f));
        String mask3 = b.op("Unsqueeze", mask, last);
        String features = b.op("Mul", b.op("Sin", arg), mask3);

        String y = q4.apply(b, features);
        int d = spec.contextDim();
        y = b.op("Add", y, b.op("Mul", mask3, b.constFloat(w.maskTerm(), d)));
        y = b.op("Add", y, b.constFloat(w.bias(), d));
        b.output(y, GraphSignatures.outputs(BundleGraph.TEXT_ENCODER, spec).get(0));
        return b.build();
    }

    private static String idFeature(GraphBuilder b, String ids, long modulus) {
        String mod = b.op("Mod", ids, b.constLong(new long[] {modulus}));
        return b.op("Div", b.cast(mod, FLOAT), b.scalar(modulus));
    }

    private static float[] row(float[] m, int r, int width) {
        float[] out = new float[width];
        System.arraycopy(m, r * width, out, 0, width);
        return out;
    }
}
