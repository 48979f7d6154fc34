package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import java.util.List;

/** Node builders and tests. Stateless. */
public final class Nodes {
    /** The domain of ONNX Runtime's contrib operators. */
    public static final String MICROSOFT = "com.microsoft";

    private Nodes() {}

    /**
     * @param name the node's name
     * @param op its operator (default domain)
     * @param inputs its inputs
     * @param output its one output
     * @param attributes its attributes
     * @return the node
     */
    public static NodeProto node(
            String name, String op, List<String> inputs, String output, List<AttributeProto> attributes) {
        return NodeProto.newBuilder()
                .setName(name)
                .setOpType(op)
                .addAllInput(inputs)
                .addOutput(output)
                .addAllAttribute(attributes)
                .build();
    }

    /**
     * @param name the node's name
     * @param input the value cast
     * @param output the cast value
     * @param to the element type cast to ({@link ElementTypes})
     * @return a {@code Cast} node
     */
    public static NodeProto cast(String name, String input, String output, int to) {
        return node(name, "Cast", List.of(input), output, List.of(Attributes.ofInt("to", to)));
    }

    /**
     * @param node a node
     * @return whether it is in the default (ONNX) domain
     */
    public static boolean standard(NodeProto node) {
        return node.getDomain().isEmpty() || node.getDomain().equals("ai.onnx");
    }

    /**
     * @param node a node
     * @param ops operator names
     * @return whether it is one of these default-domain operators
     */
    public static boolean isOp(NodeProto node, String... ops) {
        if (!standard(node)) {
            return false;
        }
        for (String op : ops) {
            if (node.getOpType().equals(op)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param node a node
     * @param i an input index
     * @return whether the node has a non-empty input {@code i}
     */
    public static boolean hasInput(NodeProto node, int i) {
        return node.getInputCount() > i && !node.getInput(i).isEmpty();
    }
}
