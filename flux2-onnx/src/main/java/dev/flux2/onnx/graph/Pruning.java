package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Removing what a rewrite left without readers. Stateless. */
public final class Pruning {
    private Pruning() {}

    /**
     * Removes the nodes that produce one of {@code candidates} and are read by nothing any more, then what fed only
     * those, and so on, leaving every other node, dead or not, as it is.
     *
     * @param nodes the nodes after a rewrite, in order
     * @param candidates the values whose producers may have lost their last reader (the inputs of removed nodes)
     * @param graphOutputs the graph's outputs, which are always read
     * @return the nodes kept, in order
     */
    public static List<NodeProto> withoutDeadNodes(
            List<NodeProto> nodes, Set<String> candidates, Set<String> graphOutputs) {
        Set<String> pending = new HashSet<>(candidates);
        while (!pending.isEmpty()) {
            Map<String, Integer> used = new HashMap<>();
            for (NodeProto n : nodes) {
                n.getInputList().forEach(in -> used.merge(in, 1, Integer::sum));
                for (AttributeProto a : n.getAttributeList()) {
                    if (a.hasG()) {
                        a.getG()
                                .getNodeList()
                                .forEach(s -> s.getInputList().forEach(in -> used.merge(in, 1, Integer::sum)));
                    }
                }
            }
            Set<String> next = new HashSet<>();
            List<NodeProto> kept = new ArrayList<>();
            for (NodeProto n : nodes) {
                boolean candidate = n.getOutputList().stream().anyMatch(pending::contains);
                boolean dead =
                        n.getOutputList().stream().noneMatch(o -> used.containsKey(o) || graphOutputs.contains(o));
                if (candidate && dead) {
                    next.addAll(n.getInputList());
                } else {
                    kept.add(n);
                }
            }
            nodes = kept;
            pending = next;
        }
        return nodes;
    }
}
