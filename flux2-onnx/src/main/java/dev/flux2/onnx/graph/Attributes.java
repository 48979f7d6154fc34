package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import java.util.List;
import java.util.Optional;

/** Node attributes: built and read. Stateless. */
public final class Attributes {
    private Attributes() {}

    /**
     * @param name the attribute's name
     * @param value its value
     * @return an {@code INT} attribute
     */
    public static AttributeProto ofInt(String name, long value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.INT)
                .setI(value)
                .build();
    }

    /**
     * @param name the attribute's name
     * @param values its values
     * @return an {@code INTS} attribute
     */
    public static AttributeProto ofInts(String name, long... values) {
        AttributeProto.Builder b = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long v : values) {
            b.addInts(v);
        }
        return b.build();
    }

    /**
     * @param name the attribute's name
     * @param value its value
     * @return a {@code FLOAT} attribute
     */
    public static AttributeProto ofFloat(String name, float value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.FLOAT)
                .setF(value)
                .build();
    }

    /**
     * @param node a node
     * @param name an attribute's name
     * @param absent the value when the node has no such attribute
     * @return the attribute's integer value
     */
    public static long intValue(NodeProto node, String name, long absent) {
        for (AttributeProto a : node.getAttributeList()) {
            if (a.getName().equals(name)) {
                return a.getI();
            }
        }
        return absent;
    }

    /**
     * @param node a node
     * @param name an attribute's name
     * @return the attribute's integers, empty when the node has no such attribute
     */
    public static Optional<List<Long>> intsValue(NodeProto node, String name) {
        for (AttributeProto a : node.getAttributeList()) {
            if (a.getName().equals(name)) {
                return Optional.of(a.getIntsList());
            }
        }
        return Optional.empty();
    }

    /**
     * @param graph a graph
     * @return whether a node of it has a subgraph attribute (If, Loop, Scan)
     */
    public static boolean hasSubgraphs(GraphProto graph) {
        return subgraphOwner(graph).isPresent();
    }

    /**
     * @param graph a graph
     * @return the first node with a subgraph attribute
     */
    public static Optional<NodeProto> subgraphOwner(GraphProto graph) {
        for (NodeProto n : graph.getNodeList()) {
            for (AttributeProto a : n.getAttributeList()) {
                if (a.hasG() || a.getGraphsCount() > 0) {
                    return Optional.of(n);
                }
            }
        }
        return Optional.empty();
    }
}
