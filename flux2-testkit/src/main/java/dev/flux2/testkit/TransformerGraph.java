package dev.flux2.testkit;

import static dev.flux2.testkit.TensorElementType.FLOAT;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The synthetic per-step and fused transformer graphs. Both share one set of initializers (the same external
 * data), so the fused graph's step is exactly the per-step function; see {@link SyntheticReference#velocity}.
 */
final class TransformerGraph {
    private static final int C = SyntheticDims.LATENT_CHANNELS;
    private static final int PADDING_REPEATS = SyntheticDims.PADDING_K / C;

    private final SyntheticBundleSpec spec;
    private final TransformerWeights w;
    private final NBitsTensors tokens;
    private final NBitsTensors padding;

    /**
     * @param padding the padding weight, or null when the spec asks for none
     */
    TransformerGraph(SyntheticBundleSpec spec, TransformerWeights w, NBitsTensors tokens, NBitsTensors padding) {
        this.spec = spec;
        this.w = w;
        this.tokens = tokens;
        this.padding = padding;
    }

    ModelProto perStep() {
        GraphBuilder b = new GraphBuilder(BundleGraph.TRANSFORMER, spec);
        Map<String, String> in = inputs(b, BundleGraph.TRANSFORMER);
        Shared fixed = stepIndependentTerms(b, in);
        String pred = velocity(b, in.get("x"), in.get("timesteps"), fixed);
        b.output(pred, GraphSignatures.outputs(BundleGraph.TRANSFORMER, spec).get(0));
        return b.build();
    }

    ModelProto fused() {
        BundleGraph g = BundleGraph.TRANSFORMER_FUSED_4STEP;
        GraphBuilder b = new GraphBuilder(g, spec);
        Map<String, String> in = inputs(b, g);
        Shared fixed = stepIndependentTerms(b, in);
        String[] sigmas = new String[5];
        String[] dts = new String[4];
        if (spec.fused() == FusedConvention.ENGINE) {
            for (int i = 0; i < 4; i++) {
                sigmas[i] = in.get("timestep_" + i);
                dts[i] = in.get("dt_" + i);
            }
        } else {
            for (int i = 0; i < 4; i++) {
                sigmas[i] = b.op(
                        "Slice",
                        in.get("timesteps"),
                        b.constLong(new long[] {i}, 1),
                        b.constLong(new long[] {i + 1}, 1),
                        b.constLong(new long[] {0}, 1));
            }
            sigmas[4] = b.constFloat(new float[] {0f}, 1);
            for (int i = 0; i < 4; i++) {
                dts[i] = b.op("Sub", sigmas[i + 1], sigmas[i]);
            }
        }
        // x stays fp32 between steps; each step sees it rounded to the activation type like a per-step graph input
        // would, and uses the velocity rounded as a per-step graph would output it.
        TensorElementType act = spec.activationType(g);
        String x = in.get("x");
        for (int i = 0; i < 4; i++) {
            String stepInput = i == 0 ? x : b.roundTo(x, act);
            String v = b.roundTo(velocity(b, stepInput, sigmas[i], fixed), act);
            x = b.op("Add", x, b.op("Mul", dts[i], v));
        }
        b.output(x, GraphSignatures.outputs(g, spec).get(0));
        return b.build();
    }

    private Map<String, String> inputs(GraphBuilder b, BundleGraph g) {
        Map<String, String> names = new HashMap<>();
        for (Port p : GraphSignatures.inputs(g, spec)) {
            names.put(p.name(), b.input(p, FLOAT));
        }
        return names;
    }

    /** Values every step shares: the step-independent terms and the per-step constants. */
    private record Shared(String fixed, String meanProjection, String sigmaVector, String coef) {}

    /**
     * The id term 0.25·sin(ids·P + φ) [B,T,128] plus the context term [B,1,128], which no step changes, and the
     * constants each step uses.
     */
    private Shared stepIndependentTerms(GraphBuilder b, Map<String, String> in) {
        int d = spec.contextDim();
        String idArg = b.op(
                "Add",
                b.op("MatMul", in.get("x_ids"), b.constFloat(w.idProjection(), 4, C)),
                b.constFloat(w.idPhase(), C));
        String idTerm = b.op("Mul", b.op("Sin", idArg), b.scalar(TransformerWeights.ID_COEF));

        String ctxArg = b.op(
                "Add",
                b.op("MatMul", in.get("ctx_ids"), b.constFloat(w.ctxIdProjection(), 4, d)),
                b.constFloat(w.ctxIdPhase(), d));
        String modulation = b.op(
                "Add", b.op("Mul", b.op("Sin", ctxArg), b.scalar(TransformerWeights.CTX_MODULATION)), b.scalar(1f));
        String meanCtx = b.op(
                "ReduceMean",
                List.of(b.op("Mul", in.get("ctx"), modulation)),
                GraphBuilder.attrInts("axes", 1),
                GraphBuilder.attrInt("keepdims", 1));
        String ctxTerm = b.op("MatMul", meanCtx, b.constFloat(w.ctxProjection(), d, C));
        return new Shared(
                b.op("Add", idTerm, ctxTerm),
                b.constFloat(w.meanProjection(), C, C),
                b.constFloat(w.sigmaVector(), C),
                b.scalar(TransformerWeights.TOKEN_COEF));
    }

    private String velocity(GraphBuilder b, String x, String sigma, Shared shared) {
        String tokenTerm = b.op("Mul", tokens.apply(b, x), shared.coef());
        String mean =
                b.op("ReduceMean", List.of(x), GraphBuilder.attrInts("axes", 1), GraphBuilder.attrInt("keepdims", 1));
        String meanTerm = b.op("MatMul", mean, shared.meanProjection());
        String sigmaTerm = b.op("Mul", sigma, shared.sigmaVector());
        String pred = b.op("Add", tokenTerm, shared.fixed());
        pred = b.op("Add", pred, meanTerm);
        pred = b.op("Add", pred, sigmaTerm);
        if (padding != null) {
            // The padding weights dequantize to exactly 0, so this adds 0; ORT cannot know that without
            // reading every padding byte on every run.
            String tiled = b.op("Tile", mean, b.constLong(new long[] {1, 1, PADDING_REPEATS}, 3));
            String padOut = padding.apply(b, tiled);
            String padSum = b.op(
                    "ReduceSum", List.of(padOut, b.constLong(new long[] {2}, 1)), GraphBuilder.attrInt("keepdims", 1));
            pred = b.op("Add", pred, padSum);
        }
        return pred;
    }
}
