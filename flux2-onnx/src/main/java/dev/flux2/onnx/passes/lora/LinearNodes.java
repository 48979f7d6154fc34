package dev.flux2.onnx.passes.lora;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.onnx.graph.ElementTypes;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import java.util.ArrayList;
import java.util.List;

/** Finds the linear layers of a graph by operator and constant weight. Stateless. */
final class LinearNodes {
    private LinearNodes() {}

    /**
     * @param index the graph
     * @return its linear layers in graph (topological) order
     */
    static List<GraphLinear> of(GraphIndex index) {
        List<GraphLinear> out = new ArrayList<>();
        for (int i = 0; i < index.graph().getNodeCount(); i++) {
            NodeProto n = index.node(i);
            if (Nodes.isOp(n, "MatMul") && n.getInputCount() == 2) {
                TensorProto w = weight(index, n.getInput(1));
                if (w != null && w.getDimsCount() == 2) {
                    out.add(new GraphLinear(
                            i, n.getInput(0), n.getOutput(0), (int) w.getDims(0), (int) w.getDims(1), w.getDataType()));
                }
            } else if (Nodes.isOp(n, "Gemm") && n.getInputCount() >= 2) {
                TensorProto w = weight(index, n.getInput(1));
                if (w != null && w.getDimsCount() == 2 && attr(n, "transA", 0) == 0) {
                    boolean transB = attr(n, "transB", 0) != 0;
                    int in = (int) (transB ? w.getDims(1) : w.getDims(0));
                    int outF = (int) (transB ? w.getDims(0) : w.getDims(1));
                    out.add(new GraphLinear(i, n.getInput(0), n.getOutput(0), in, outF, w.getDataType()));
                }
            } else if (n.getOpType().equals("MatMulNBits")
                    && n.getDomain().equals(Nodes.MICROSOFT)
                    && n.getInputCount() >= 3) {
                TensorProto scales = index.initializer(n.getInput(2));
                int type = scales == null ? ElementTypes.FLOAT : scales.getDataType();
                out.add(new GraphLinear(
                        i, n.getInput(0), n.getOutput(0), (int) attr(n, "K", 0), (int) attr(n, "N", 0), type));
            }
        }
        return out;
    }

    /** The initializer behind a weight input, seen through a Cast (fp16 weights widened in the graph). */
    private static TensorProto weight(GraphIndex index, String value) {
        TensorProto t = index.initializer(value);
        if (t != null) {
            return t;
        }
        int p = index.producerOf(value);
        if (p >= 0 && index.isOp(p, "Cast", "Identity")) {
            return index.initializer(index.node(p).getInput(0));
        }
        return null;
    }

    static long attr(NodeProto n, String name, long otherwise) {
        for (AttributeProto a : n.getAttributeList()) {
            if (a.getName().equals(name)) {
                return a.getI();
            }
        }
        return otherwise;
    }
}
