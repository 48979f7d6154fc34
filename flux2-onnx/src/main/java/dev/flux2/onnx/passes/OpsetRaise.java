package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.onnx.graph.Nodes;
import java.util.List;
import java.util.Set;

/**
 * Raising a graph's default-domain opset to 21 for {@link WeightDequantization}'s {@code DequantizeLinear}: which
 * operators behave the same up to opset 21, and the one change a valid graph can depend on (the {@code axes} of the
 * {@code Reduce*} operators becoming an input at opset 18), rewritten. Stateless.
 */
final class OpsetRaise {
    private OpsetRaise() {}

    /** Reduce operators whose {@code axes} attribute became an input at opset 18 (ReduceSum already at 13). */
    static final Set<String> REDUCE_AXES_18 = Set.of(
            "ReduceMean",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare");

    /**
     * Default-domain operators whose behaviour for a graph valid at opset 13–20 is the same at opset 21 (changes in
     * between only add types, optional inputs or attributes with the old behaviour as default), besides
     * {@link #REDUCE_AXES_18}, which is rewritten.
     */
    private static final Set<String> UNCHANGED_TO_21 = Set.of(
            "Abs",
            "Add",
            "And",
            "ArgMax",
            "ArgMin",
            "Cast",
            "CastLike",
            "Ceil",
            "Clip",
            "Concat",
            "Constant",
            "ConstantOfShape",
            "Conv",
            "ConvTranspose",
            "Cos",
            "CumSum",
            "DequantizeLinear",
            "Div",
            "Equal",
            "Erf",
            "Exp",
            "Expand",
            "Flatten",
            "Floor",
            "Gather",
            "GatherElements",
            "GatherND",
            "Gelu",
            "Gemm",
            "Greater",
            "GreaterOrEqual",
            "HardSigmoid",
            "Identity",
            "InstanceNormalization",
            "LayerNormalization",
            "LeakyRelu",
            "Less",
            "LessOrEqual",
            "Log",
            "MatMul",
            "Max",
            "Min",
            "Mod",
            "Mul",
            "Neg",
            "Not",
            "Or",
            "Pad",
            "Pow",
            "QuantizeLinear",
            "Range",
            "Reciprocal",
            "ReduceSum",
            "Relu",
            "Reshape",
            "Resize",
            "ScatterND",
            "Shape",
            "Sigmoid",
            "Sign",
            "Sin",
            "Size",
            "Slice",
            "Softmax",
            "Split",
            "Sqrt",
            "Squeeze",
            "Sub",
            "Tanh",
            "Tile",
            "Transpose",
            "Trilu",
            "Unsqueeze",
            "Where",
            "Xor");

    /** A {@code Reduce*} node of opset < 18 with its {@code axes} attribute as a constant input (opset 18). */
    static List<NodeProto> axesAsInput(NodeProto n, String axesName) {
        AttributeProto axes = null;
        for (AttributeProto a : n.getAttributeList()) {
            if (a.getName().equals("axes")) {
                axes = a;
            }
        }
        if (axes == null) {
            return List.of(n); // all axes: the same at 18
        }
        NodeProto.Builder b = n.toBuilder().clearAttribute();
        n.getAttributeList().stream().filter(a -> !a.getName().equals("axes")).forEach(b::addAttribute);
        if (b.getInputCount() == 1) {
            b.addInput(axesName);
        }
        NodeProto constant = NodeProto.newBuilder()
                .setOpType("Constant")
                .setName(axesName + "/Constant")
                .addOutput(axesName)
                .addAttribute(AttributeProto.newBuilder()
                        .setName("value")
                        .setType(AttributeProto.AttributeType.TENSOR)
                        .setT(TensorProto.newBuilder()
                                .setDataType(TensorProto.DataType.INT64_VALUE)
                                .addDims(axes.getIntsCount())
                                .addAllInt64Data(axes.getIntsList())))
                .build();
        return List.of(constant, b.build());
    }

    /** @return why the graph's opset cannot be raised to 21, or null when it can */
    static String blocker(GraphProto graph, int opset) {
        if (opset < 13) {
            return "the graph's opset " + opset + " is below 13";
        }
        for (NodeProto n : graph.getNodeList()) {
            for (AttributeProto a : n.getAttributeList()) {
                if (a.hasG() || a.getGraphsCount() > 0) {
                    return "the graph has subgraphs (" + n.getOpType() + ")";
                }
            }
            if (Nodes.standard(n)
                    && !UNCHANGED_TO_21.contains(n.getOpType())
                    && !REDUCE_AXES_18.contains(n.getOpType())) {
                return "raising the opset from " + opset + " to 21 for DequantizeLinear: " + n.getOpType()
                        + " is not known to behave the same";
            }
        }
        return null;
    }
}
