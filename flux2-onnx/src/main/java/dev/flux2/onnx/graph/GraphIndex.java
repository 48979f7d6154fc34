package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import ai.onnxruntime.platform.Fp16Conversions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * An index of one graph: the producer of every value, how often each value is read (by nodes, and by the nodes of
 * their subgraphs, which may read outer values), the graph's inputs, outputs and initializers, the ranks and sizes
 * the graph declares, and the element types ({@link ElementTypes}). Built once per graph and pass; immutable.
 */
public final class GraphIndex {
    private final GraphProto graph;
    private final Map<String, Integer> producer = new HashMap<>();
    private final Map<String, Integer> uses = new HashMap<>();
    private final Set<String> graphOutputs = new HashSet<>();
    private final Set<String> graphInputs = new HashSet<>();
    private final Map<String, TensorProto> initializers = new HashMap<>();
    private final Map<String, Integer> ranks = new HashMap<>();
    private final Map<String, List<Long>> declaredDims = new HashMap<>();
    private final ElementTypes types;

    private GraphIndex(GraphProto graph) {
        this.graph = graph;
        for (int i = 0; i < graph.getNodeCount(); i++) {
            NodeProto n = graph.getNode(i);
            for (String o : n.getOutputList()) {
                producer.put(o, i);
            }
            for (String in : n.getInputList()) {
                uses.merge(in, 1, Integer::sum);
            }
            // Subgraph inputs from the outer scope count as uses.
            for (AttributeProto a : n.getAttributeList()) {
                if (a.hasG()) {
                    countSubgraphUses(a.getG());
                }
                a.getGraphsList().forEach(this::countSubgraphUses);
            }
        }
        graph.getOutputList().forEach(o -> graphOutputs.add(o.getName()));
        graph.getInputList().forEach(v -> graphInputs.add(v.getName()));
        graph.getInitializerList().forEach(t -> initializers.put(t.getName(), t));
        graph.getInputList().forEach(this::declare);
        graph.getValueInfoList().forEach(this::declare);
        this.types = ElementTypes.of(graph);
    }

    /**
     * @param graph a graph
     * @return its index
     */
    public static GraphIndex of(GraphProto graph) {
        return new GraphIndex(graph);
    }

    private void countSubgraphUses(GraphProto g) {
        for (NodeProto n : g.getNodeList()) {
            n.getInputList().forEach(in -> uses.merge(in, 1, Integer::sum));
        }
    }

    private void declare(ValueInfoProto v) {
        if (v.getType().hasTensorType() && v.getType().getTensorType().hasShape()) {
            TensorShapeProto s = v.getType().getTensorType().getShape();
            ranks.put(v.getName(), s.getDimCount());
            List<Long> dims = new ArrayList<>();
            s.getDimList().forEach(d -> dims.add(d.hasDimValue() && d.getDimValue() > 0 ? d.getDimValue() : -1L));
            declaredDims.put(v.getName(), dims);
        }
    }

    /** @return the graph indexed */
    public GraphProto graph() {
        return graph;
    }

    /**
     * @param i a node index
     * @return the node
     */
    public NodeProto node(int i) {
        return graph.getNode(i);
    }

    /** @return the element types of the graph's values */
    public ElementTypes types() {
        return types;
    }

    /**
     * @param value a value's name
     * @return the index of the node that produces it, -1 for a graph input, an initializer or an unknown name
     */
    public int producerOf(String value) {
        return producer.getOrDefault(value, -1);
    }

    /**
     * @param value a value's name
     * @return how many node inputs (subgraphs' included) read it
     */
    public int uses(String value) {
        return uses.getOrDefault(value, 0);
    }

    /**
     * @param value a value's name
     * @return whether it is an output of the graph
     */
    public boolean isGraphOutput(String value) {
        return graphOutputs.contains(value);
    }

    /**
     * @param value a value's name
     * @return whether it is an input of the graph
     */
    public boolean isGraphInput(String value) {
        return graphInputs.contains(value);
    }

    /**
     * @param name a name
     * @return the initializer of that name, or null
     */
    public TensorProto initializer(String name) {
        return initializers.get(name);
    }

    /**
     * @param value a value's name
     * @return its declared rank (a graph input or value info with a shape), or null
     */
    public Integer declaredRank(String value) {
        return ranks.get(value);
    }

    /**
     * @param value a value's name
     * @return its declared dimensions, -1 where not a fixed positive size, or null when no shape is declared
     */
    public List<Long> declaredDims(String value) {
        return declaredDims.get(value);
    }

    /**
     * @param value a value's name ({@code ""}, an absent optional input, is single-use)
     * @param expected the number of reads wanted
     * @return whether exactly {@code expected} node inputs read it and it is no graph output
     */
    public boolean singleUse(String value, int expected) {
        if (value.isEmpty()) {
            return true;
        }
        return uses(value) == expected && !graphOutputs.contains(value);
    }

    /** @return the one node that reads the value (and nothing else does, nor is it a graph output), or -1 */
    public int soleConsumer(String value) {
        if (!singleUse(value, 1)) {
            return -1;
        }
        for (int i = 0; i < graph.getNodeCount(); i++) {
            if (graph.getNode(i).getInputList().contains(value)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param node a node index
     * @param ops operator names
     * @return whether the node is one of these default-domain operators
     */
    public boolean isOp(int node, String... ops) {
        return Nodes.isOp(graph.getNode(node), ops);
    }

    /** The rank from a shape the graph declares, seen through casts (the chunk graph casts its inputs). */
    public Integer rankThroughCasts(String value) {
        for (int depth = 0; depth < 8; depth++) {
            Integer r = ranks.get(value);
            if (r != null) {
                return r;
            }
            int p = producerOf(value);
            if (p < 0 || !isOp(p, "Cast", "Identity")) {
                return null;
            }
            value = graph.getNode(p).getInput(0);
        }
        return null;
    }

    /** A one-element constant (an initializer or a Constant node's tensor), as a double. */
    public OptionalDouble scalar(String value) {
        TensorProto t = initializers.get(value);
        if (t == null) {
            int p = producerOf(value);
            if (p >= 0 && isOp(p, "Constant")) {
                for (AttributeProto a : graph.getNode(p).getAttributeList()) {
                    if (a.hasT()) {
                        t = a.getT();
                    } else if (a.getName().equals("value_float")) {
                        return OptionalDouble.of(a.getF());
                    }
                }
            }
        }
        if (t == null || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
            return OptionalDouble.empty();
        }
        long n = 1;
        for (long d : t.getDimsList()) {
            n *= d;
        }
        if (n != 1) {
            return OptionalDouble.empty();
        }
        ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        switch (t.getDataType()) {
            case ElementTypes.FLOAT:
                return t.getFloatDataCount() == 1
                        ? OptionalDouble.of(t.getFloatData(0))
                        : raw.remaining() == 4 ? OptionalDouble.of(raw.getFloat()) : OptionalDouble.empty();
            case ElementTypes.DOUBLE:
                return t.getDoubleDataCount() == 1
                        ? OptionalDouble.of(t.getDoubleData(0))
                        : raw.remaining() == 8 ? OptionalDouble.of(raw.getDouble()) : OptionalDouble.empty();
            case ElementTypes.FLOAT16:
                if (t.getInt32DataCount() == 1) {
                    return OptionalDouble.of(Fp16Conversions.fp16ToFloat((short) t.getInt32Data(0)));
                }
                return raw.remaining() == 2
                        ? OptionalDouble.of(Fp16Conversions.fp16ToFloat(raw.getShort()))
                        : OptionalDouble.empty();
            default:
                return OptionalDouble.empty();
        }
    }
}
