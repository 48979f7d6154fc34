package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.onnx.graph.Attributes;
import dev.flux2.onnx.graph.ElementTypes;
import dev.flux2.onnx.graph.FreshNames;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import dev.flux2.onnx.graph.Opsets;
import dev.flux2.onnx.graph.Pruning;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes each {@link RopeMatcher.Site} as one {@code com.microsoft.RotaryEmbedding} node with {@code interleaved = 1}
 * (docs/fused-attention.md §10). FLUX.2's RoPE has four position axes, so its angle is no function of one position
 * id: the node gets the per-token cos/sin rows the graph computes as its caches ([S, D/2], once per pair of rows,
 * shared by every site that reads them) and the token index 0 … S−1 as its position ids [1, S]. The caches are
 * computed right before the first site that reads them; what only the replaced nodes read is removed. Not thread-safe
 * (one instance per graph).
 */
final class RopeEmitter {
    private final FreshNames names;

    private RopeEmitter(FreshNames names) {
        this.names = names;
    }

    static ModelProto emit(ModelProto model, GraphIndex index, List<RopeMatcher.Site> sites) {
        return new RopeEmitter(FreshNames.of(index.graph())).write(model, index, sites);
    }

    /** The cache values of one pair of rows. */
    private record Cache(String positions, String cos, String sin) {}

    private ModelProto write(ModelProto model, GraphIndex index, List<RopeMatcher.Site> sites) {
        GraphProto graph = index.graph();
        Set<Integer> removed = new HashSet<>();
        Map<Integer, List<NodeProto>> before = new HashMap<>();
        Map<Integer, NodeProto> replaced = new HashMap<>();
        Map<String, Cache> caches = new LinkedHashMap<>();
        List<TensorProto> constants = new ArrayList<>();
        for (RopeMatcher.Site s : sites) {
            String key = s.cosRows() + "\n" + s.sinRows() + "\n" + s.half();
            Cache cache = caches.get(key);
            if (cache == null) {
                List<NodeProto> nodes = before.computeIfAbsent(s.back(), k -> new ArrayList<>());
                cache = cache(nodes, constants, s);
                caches.put(key, cache);
            }
            removed.addAll(s.nodes());
            NodeProto back = graph.getNode(s.back());
            replaced.put(
                    s.back(),
                    NodeProto.newBuilder()
                            .setName(names.fresh("rope_fused"))
                            .setOpType("RotaryEmbedding")
                            .setDomain(Nodes.MICROSOFT)
                            .addInput(s.input())
                            .addInput(cache.positions())
                            .addInput(cache.cos())
                            .addInput(cache.sin())
                            .addOutput(back.getOutput(0))
                            .addAttribute(Attributes.ofInt("interleaved", 1))
                            .build());
            removed.add(s.back());
        }
        List<NodeProto> nodes = new ArrayList<>();
        for (int i = 0; i < graph.getNodeCount(); i++) {
            nodes.addAll(before.getOrDefault(i, List.of()));
            if (replaced.containsKey(i)) {
                nodes.add(replaced.get(i));
            } else if (!removed.contains(i)) {
                nodes.add(graph.getNode(i));
            }
        }
        Set<String> removedInputs = new HashSet<>();
        removed.forEach(i -> removedInputs.addAll(graph.getNode(i).getInputList()));
        Set<String> graphOutputs = new HashSet<>();
        graph.getOutputList().forEach(o -> graphOutputs.add(o.getName()));
        nodes = Pruning.withoutDeadNodes(nodes, removedInputs, graphOutputs);
        Set<String> live = new HashSet<>();
        nodes.forEach(n -> live.addAll(n.getInputList()));
        // Initializers only the removed nodes read (the pairs' shapes, the slice bounds) go; ONNX Runtime warns about
        // each unused one. Those the source already left unused stay.
        List<TensorProto> inits = new ArrayList<>(graph.getInitializerList());
        inits.removeIf(t -> index.uses(t.getName()) > 0
                && !live.contains(t.getName())
                && !index.isGraphOutput(t.getName())
                && !index.isGraphInput(t.getName()));
        GraphProto.Builder g = graph.toBuilder()
                .clearNode()
                .addAllNode(nodes)
                .clearInitializer()
                .addAllInitializer(inits)
                .addAllInitializer(constants);
        Set<String> values = new HashSet<>(live);
        nodes.forEach(n -> values.addAll(n.getOutputList()));
        List<ai.onnx.proto.OnnxMl.ValueInfoProto> infos = new ArrayList<>(g.getValueInfoList());
        infos.removeIf(v -> !values.contains(v.getName()));
        g.clearValueInfo().addAllValueInfo(infos);
        ModelProto.Builder m = model.toBuilder().setGraph(g);
        if (Opsets.version(model, Nodes.MICROSOFT).isEmpty()) {
            m.addOpsetImport(
                    OperatorSetIdProto.newBuilder().setDomain(Nodes.MICROSOFT).setVersion(1));
        }
        return m.build();
    }

    /** cos, sin [S, D/2] and the positions 0 … S−1 as [1, S], from rows [1, S, D/2]. */
    private Cache cache(List<NodeProto> nodes, List<TensorProto> constants, RopeMatcher.Site s) {
        String shape = constant(constants, "rope_cache_shape", new long[] {-1, s.half()}, 2);
        String zero = constant(constants, "rope_zero", new long[] {0});
        String one = constant(constants, "rope_one", new long[] {1});
        String axis0 = constant(constants, "rope_axis0", new long[] {0}, 1);
        String cos = node(nodes, "rope_cos_cache", "Reshape", List.of(s.cosRows(), shape), List.of());
        String sin = node(nodes, "rope_sin_cache", "Reshape", List.of(s.sinRows(), shape), List.of());
        String length = node(nodes, "rope_length", "Shape", List.of(cos), List.of(Attributes.ofInt("end", 1)));
        String count = node(nodes, "rope_count", "Squeeze", List.of(length), List.of());
        String range = node(nodes, "rope_range", "Range", List.of(zero, count, one), List.of());
        String positions = node(nodes, "rope_positions", "Unsqueeze", List.of(range, axis0), List.of());
        return new Cache(positions, cos, sin);
    }

    private String node(
            List<NodeProto> nodes,
            String p,
            String op,
            List<String> in,
            List<ai.onnx.proto.OnnxMl.AttributeProto> attrs) {
        String out = names.fresh(p);
        nodes.add(Nodes.node(names.fresh(p + "_node"), op, in, out, attrs));
        return out;
    }

    private String constant(List<TensorProto> constants, String p, long[] values, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(names.fresh(p)).setDataType(ElementTypes.INT64);
        for (long d : dims) {
            t.addDims(d);
        }
        for (long v : values) {
            t.addInt64Data(v);
        }
        constants.add(t.build());
        return t.getName();
    }
}
