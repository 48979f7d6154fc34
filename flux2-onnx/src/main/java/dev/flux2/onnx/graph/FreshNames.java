package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.GraphProto;
import java.util.HashSet;
import java.util.Set;

/** Fresh value and node names that collide with nothing in a graph nor with each other. Not thread-safe. */
public final class FreshNames {
    private final Set<String> taken;

    private FreshNames(Set<String> taken) {
        this.taken = taken;
    }

    /**
     * @param graph a graph
     * @return names fresh against its nodes (names, inputs, outputs), initializers and inputs
     */
    public static FreshNames of(GraphProto graph) {
        Set<String> taken = new HashSet<>();
        graph.getNodeList().forEach(n -> {
            taken.addAll(n.getOutputList());
            taken.addAll(n.getInputList());
            taken.add(n.getName());
        });
        graph.getInitializerList().forEach(t -> taken.add(t.getName()));
        graph.getInputList().forEach(v -> taken.add(v.getName()));
        return new FreshNames(taken);
    }

    /**
     * @param base the name wanted
     * @return {@code base}, or {@code base_2}, {@code base_3}, … the first not taken; taken from now on
     */
    public String fresh(String base) {
        String name = base;
        for (int i = 2; taken.contains(name); i++) {
            name = base + "_" + i;
        }
        taken.add(name);
        return name;
    }
}
