package dev.flux2.bench.cuda;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A measurement probe for the next graph pass, not a product pass: the timing transformer's interleaved-pair RoPE
 * (Reshape to pairs, two Slices, four Muls, Sub, Add, Concat, Reshape back: ten nodes and four full-size temporaries
 * per q and per k) replaced by one {@code com.microsoft.RotaryEmbedding} node with {@code interleaved = 1}. FLUX.2's
 * RoPE has four position axes, so its angles are no function of one position id; the probe feeds the per-token
 * cos/sin rows the graph already computes as the node's caches and the token index as the position id. It matches
 * the structure {@code TimingTransformerGraph.applyRope} writes (the real export's RoPE may be written otherwise);
 * anything else is left alone.
 */
final class RopeFusionProbe {
    private static final String MS = "com.microsoft";

    private RopeFusionProbe() {}

    /**
     * @param model the rewritten graph
     * @param fused RoPE subgraphs replaced
     */
    record Result(ModelProto model, int fused) {}

    static Result apply(ModelProto model) {
        GraphProto g = model.getGraph();
        Map<String, NodeProto> producer = new HashMap<>();
        Map<String, Integer> uses = new HashMap<>();
        for (NodeProto n : g.getNodeList()) {
            n.getOutputList().forEach(o -> producer.put(o, n));
            n.getInputList().forEach(i -> uses.merge(i, 1, Integer::sum));
        }
        Set<NodeProto> removed = new HashSet<>();
        Map<NodeProto, NodeProto> replacement = new HashMap<>();
        Map<String, String[]> caches = new HashMap<>();
        Map<NodeProto, List<NodeProto>> after = new HashMap<>();
        List<TensorProto> constants = new ArrayList<>();
        int count = 0;
        for (NodeProto concat : g.getNodeList()) {
            if (!concat.getOpType().equals("Concat") || intAttr(concat, "axis") != 4 || concat.getInputCount() != 2) {
                continue;
            }
            NodeProto sub = producer.get(concat.getInput(0));
            NodeProto add = producer.get(concat.getInput(1));
            if (sub == null
                    || add == null
                    || !sub.getOpType().equals("Sub")
                    || !add.getOpType().equals("Add")) {
                continue;
            }
            NodeProto m0 = producer.get(sub.getInput(0));
            NodeProto m1 = producer.get(sub.getInput(1));
            NodeProto m2 = producer.get(add.getInput(0));
            NodeProto m3 = producer.get(add.getInput(1));
            if (!allMul(m0, m1, m2, m3)) {
                continue;
            }
            String x0 = m0.getInput(0);
            String cos = m0.getInput(1);
            String x1 = m1.getInput(0);
            String sin = m1.getInput(1);
            NodeProto s0 = producer.get(x0);
            NodeProto s1 = producer.get(x1);
            if (s0 == null
                    || s1 == null
                    || !s0.getOpType().equals("Slice")
                    || !s1.getOpType().equals("Slice")
                    || !s0.getInput(0).equals(s1.getInput(0))) {
                continue;
            }
            NodeProto pairs = producer.get(s0.getInput(0));
            List<NodeProto> consumers = consumers(g, concat.getOutput(0));
            if (pairs == null
                    || !pairs.getOpType().equals("Reshape")
                    || consumers.size() != 1
                    || !consumers.get(0).getOpType().equals("Reshape")) {
                continue;
            }
            NodeProto back = consumers.get(0);
            String[] cache = caches.computeIfAbsent(
                    cos + "|" + sin, k -> cacheFor(producer, cos, sin, after, constants, caches.size()));
            if (cache == null) {
                continue;
            }
            NodeProto rope = NodeProto.newBuilder()
                    .setName("rope_probe_" + count)
                    .setOpType("RotaryEmbedding")
                    .setDomain(MS)
                    .addInput(pairs.getInput(0))
                    .addInput(cache[0])
                    .addInput(cache[1])
                    .addInput(cache[2])
                    .addOutput(back.getOutput(0))
                    .addAttribute(AttributeProto.newBuilder()
                            .setName("interleaved")
                            .setType(AttributeProto.AttributeType.INT)
                            .setI(1))
                    .build();
            replacement.put(back, rope);
            for (NodeProto n : List.of(pairs, s0, s1, m0, m1, m2, m3, sub, add, concat)) {
                if (n == pairs && uses.getOrDefault(pairs.getOutput(0), 0) != 2) {
                    continue;
                }
                removed.add(n);
            }
            count++;
        }
        if (count == 0) {
            return new Result(model, 0);
        }
        GraphProto.Builder out = g.toBuilder().clearNode().addAllInitializer(constants);
        for (NodeProto n : g.getNodeList()) {
            if (replacement.containsKey(n)) {
                out.addNode(replacement.get(n));
            } else if (!removed.contains(n)) {
                out.addNode(n);
            }
            out.addAllNode(after.getOrDefault(n, List.of()));
        }
        return new Result(model.toBuilder().setGraph(out).build(), count);
    }

    /**
     * The caches from the graph's cos and sin [1,1,T,64,1] (Unsqueezes of [1,T,64]): their sources reshaped to
     * [T, 64], and position ids 0 … T−1 as [1, T], computed right after the later of the two Unsqueezes.
     */
    private static String[] cacheFor(
            Map<String, NodeProto> producer,
            String cos,
            String sin,
            Map<NodeProto, List<NodeProto>> after,
            List<TensorProto> constants,
            int index) {
        NodeProto uc = producer.get(cos);
        NodeProto us = producer.get(sin);
        if (uc == null
                || us == null
                || !uc.getOpType().equals("Unsqueeze")
                || !us.getOpType().equals("Unsqueeze")) {
            return null;
        }
        String p = "rope_probe_cache_" + index;
        constants.add(longs(p + "_shape", new long[] {-1, 64}, 2));
        constants.add(longs(p + "_zero", new long[] {0}));
        constants.add(longs(p + "_one", new long[] {1}));
        constants.add(longs(p + "_axis0", new long[] {0}, 1));
        List<NodeProto> nodes = new ArrayList<>();
        nodes.add(node("Reshape", List.of(uc.getInput(0), p + "_shape"), p + "_cos"));
        nodes.add(node("Reshape", List.of(us.getInput(0), p + "_shape"), p + "_sin"));
        nodes.add(NodeProto.newBuilder()
                .setName(p + "_len_node")
                .setOpType("Shape")
                .addInput(p + "_cos")
                .addOutput(p + "_len")
                .addAttribute(AttributeProto.newBuilder()
                        .setName("end")
                        .setType(AttributeProto.AttributeType.INT)
                        .setI(1))
                .build());
        nodes.add(node("Squeeze", List.of(p + "_len"), p + "_t"));
        nodes.add(node("Range", List.of(p + "_zero", p + "_t", p + "_one"), p + "_range"));
        nodes.add(node("Unsqueeze", List.of(p + "_range", p + "_axis0"), p + "_ids"));
        // The sin Unsqueeze comes after the cos one in the graph's order (TimingTransformerGraph.rope).
        after.put(us, nodes);
        return new String[] {p + "_ids", p + "_cos", p + "_sin"};
    }

    private static NodeProto node(String op, List<String> in, String out) {
        return NodeProto.newBuilder()
                .setName(out + "_node")
                .setOpType(op)
                .addAllInput(in)
                .addOutput(out)
                .build();
    }

    private static TensorProto longs(String name, long[] values, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(TensorProto.DataType.INT64_VALUE);
        for (long d : dims) {
            t.addDims(d);
        }
        for (long v : values) {
            t.addInt64Data(v);
        }
        return t.build();
    }

    private static List<NodeProto> consumers(GraphProto g, String value) {
        List<NodeProto> list = new ArrayList<>();
        for (NodeProto n : g.getNodeList()) {
            if (n.getInputList().contains(value)) {
                list.add(n);
            }
        }
        return list;
    }

    private static boolean allMul(NodeProto... nodes) {
        for (NodeProto n : nodes) {
            if (n == null || !n.getOpType().equals("Mul")) {
                return false;
            }
        }
        return true;
    }

    private static long intAttr(NodeProto n, String name) {
        for (AttributeProto a : n.getAttributeList()) {
            if (a.getName().equals(name)) {
                return a.getI();
            }
        }
        return Long.MIN_VALUE;
    }
}
