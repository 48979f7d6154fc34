package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
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
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Replaces the blocks the {@link MhaMatcher} found with ONNX Runtime's {@code com.microsoft.MultiHeadAttention}:
 * q [.., Sq, H], k [.., Skv, H], v [.., Skv, Hv] are cast to the {@link MhaPrecision}'s type (when they are not),
 * reshaped to 3-D [batch·heads, S, H] and fed to {@code MultiHeadAttention} with {@code num_heads = 1} (so the head
 * count need not be known; the kernels parallelise over batch × heads alike), whose output is reshaped back to
 * [.., Sq, Hv] and cast to the original output's type. The leading axes of q, k and v are taken to be equal (no
 * broadcasting), as in every export flux2-java reads. What only the replaced nodes read goes too.
 */
final class MhaEmitter {
    private static final String PREFIX = "flux2_mha";

    private final GraphIndex index;
    private final int compute;
    private final FreshNames names;

    private MhaEmitter(GraphIndex index, MhaPrecision precision) {
        this.index = index;
        this.compute = precision.elementType();
        this.names = FreshNames.of(index.graph());
    }

    /**
     * @param model the model
     * @param index its graph's index
     * @param blocks the blocks to replace (at least one)
     * @param precision what the fused nodes compute in
     * @return the rewritten model
     */
    static ModelProto emit(ModelProto model, GraphIndex index, List<MhaBlock> blocks, MhaPrecision precision) {
        return new MhaEmitter(index, precision).rewrite(model, blocks);
    }

    private ModelProto rewrite(ModelProto model, List<MhaBlock> blocks) {
        GraphProto graph = index.graph();
        Set<Integer> removed = new HashSet<>();
        Map<Integer, List<NodeProto>> before = new HashMap<>();
        Shared shared = new Shared(
                names.fresh(PREFIX + "_minus1"),
                names.fresh(PREFIX + "_minus2"),
                names.fresh(PREFIX + "_zero"),
                names.fresh(PREFIX + "_end"));
        List<TensorProto> constants = new ArrayList<>(List.of(
                int64(shared.minusOne, -1),
                int64(shared.minusTwo, -2),
                int64(shared.zero, 0),
                int64(shared.end, Long.MAX_VALUE)));
        int count = 0;
        for (MhaBlock blk : blocks) {
            String p = PREFIX + "_" + count++;
            List<NodeProto> nodes = new ArrayList<>();
            String q = blk.q();
            if (blk.qSlice().isPresent()) {
                q = copy(nodes, p + "_q_slice", blk.qSlice().get());
            }
            String k = blk.k();
            if (blk.kSlice().isPresent()) {
                k = copy(nodes, p + "_k_slice", blk.kSlice().get());
            }
            if (!blk.kTransposed()) {
                long[] perm = new long[blk.ktRank()];
                for (int i = 0; i < perm.length; i++) {
                    perm[i] = i;
                }
                perm[perm.length - 1] = perm.length - 2;
                perm[perm.length - 2] = perm.length - 1;
                k = node(nodes, p + "_k", "Transpose", List.of(k), List.of(Attributes.ofInts("perm", perm)));
            }
            q = toCompute(nodes, p + "_q", q, blk.qType());
            k = toCompute(nodes, p + "_k", k, blk.kType());
            String v = toCompute(nodes, p + "_v", blk.v(), blk.vType());
            batchHeads(nodes, p, blk, q, k, v, shared);
            before.put(blk.outMatMul(), nodes);
            removed.add(blk.softmax());
            removed.add(blk.scoresMatMul());
            removed.add(blk.outMatMul());
            if (blk.castNode() >= 0) {
                removed.add(blk.castNode());
            }
            if (blk.scoreScaleNode() >= 0) {
                removed.add(blk.scoreScaleNode());
            }
        }
        List<NodeProto> nodes = new ArrayList<>();
        for (int i = 0; i < graph.getNodeCount(); i++) {
            List<NodeProto> inserted = before.get(i);
            if (inserted != null) {
                nodes.addAll(inserted);
            }
            if (!removed.contains(i)) {
                nodes.add(graph.getNode(i));
            }
        }
        Set<String> removedInputs = new HashSet<>();
        removed.forEach(i -> removedInputs.addAll(graph.getNode(i).getInputList()));
        Set<String> graphOutputs = new HashSet<>();
        graph.getOutputList().forEach(o -> graphOutputs.add(o.getName()));
        nodes = Pruning.withoutDeadNodes(nodes, removedInputs, graphOutputs);
        Set<String> live = new HashSet<>();
        nodes.forEach(n -> {
            live.addAll(n.getOutputList());
            live.addAll(n.getInputList());
        });
        // Initializers that only the removed nodes read (the scale constants) go too: ONNX Runtime warns about each
        // unused one. Those the source already left unused stay, as everything else the source has.
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
        List<ValueInfoProto> infos = new ArrayList<>(g.getValueInfoList());
        infos.removeIf(v -> !live.contains(v.getName()));
        g.clearValueInfo().addAllValueInfo(infos);
        ModelProto.Builder m = model.toBuilder().setGraph(g);
        if (Opsets.version(model, Nodes.MICROSOFT).isEmpty()) {
            m.addOpsetImport(
                    OperatorSetIdProto.newBuilder().setDomain(Nodes.MICROSOFT).setVersion(1));
        }
        return m.build();
    }

    /** The int64 constants every block's reshapes share. */
    private record Shared(String minusOne, String minusTwo, String zero, String end) {}

    /** [batch·heads, S, H] with one head. */
    private void batchHeads(List<NodeProto> nodes, String p, MhaBlock blk, String q, String k, String v, Shared c) {
        String qShape = node(nodes, p + "_q_shape", "Shape", List.of(q), List.of());
        String vShape = node(nodes, p + "_v_shape", "Shape", List.of(v), List.of());
        String q3 = flatten(nodes, p + "_q", q, qShape, c);
        String k3 = flatten(nodes, p + "_k", k, node(nodes, p + "_k_shape", "Shape", List.of(k), List.of()), c);
        String v3 = flatten(nodes, p + "_v", v, vShape, c);
        String mha = names.fresh(p + "_out3");
        nodes.add(NodeProto.newBuilder()
                .setName(names.fresh(p))
                .setOpType("MultiHeadAttention")
                .setDomain(Nodes.MICROSOFT)
                .addInput(q3)
                .addInput(k3)
                .addInput(v3)
                .addOutput(mha)
                .addAttribute(Attributes.ofInt("num_heads", 1))
                .addAttribute(Attributes.ofFloat("scale", (float) blk.scale()))
                .build());
        String lead = node(nodes, p + "_lead", "Slice", List.of(qShape, c.zero, c.minusOne, c.zero), List.of());
        String last = node(nodes, p + "_last", "Slice", List.of(vShape, c.minusOne, c.end, c.zero), List.of());
        String shape = node(nodes, p + "_shape", "Concat", List.of(lead, last), List.of(axis0()));
        boolean cast = blk.outputType() != compute;
        String reshaped = cast ? names.fresh(p + "_out") : blk.output();
        nodes.add(Nodes.node(names.fresh(p + "_reshape"), "Reshape", List.of(mha, shape), reshaped, List.of()));
        if (cast) {
            nodes.add(Nodes.cast(names.fresh(p + "_cast_out"), reshaped, blk.output(), blk.outputType()));
        }
    }

    private String flatten(List<NodeProto> nodes, String p, String x, String shape, Shared c) {
        String tail = node(nodes, p + "_tail", "Slice", List.of(shape, c.minusTwo, c.end, c.zero), List.of());
        String to = node(nodes, p + "_shape3", "Concat", List.of(c.minusOne, tail), List.of(axis0()));
        return node(nodes, p + "_3d", "Reshape", List.of(x, to), List.of());
    }

    /** x cast to the fused node's element type, when it is of another. */
    private String toCompute(List<NodeProto> nodes, String p, String x, int type) {
        if (type == compute) {
            return x;
        }
        return node(
                nodes,
                p + (compute == ElementTypes.FLOAT ? "_fp32" : "_fp16"),
                "Cast",
                List.of(x),
                List.of(Attributes.ofInt("to", compute)));
    }

    /** A copy of a node (a Slice re-applied to the unscaled value) with a fresh name and output. */
    private String copy(List<NodeProto> nodes, String p, NodeProto template) {
        String out = names.fresh(p);
        nodes.add(template.toBuilder().setName(names.fresh(p)).setOutput(0, out).build());
        return out;
    }

    private String node(List<NodeProto> nodes, String p, String op, List<String> in, List<AttributeProto> attrs) {
        String out = names.fresh(p);
        nodes.add(Nodes.node(names.fresh(p + "_node"), op, in, out, attrs));
        return out;
    }

    private static AttributeProto axis0() {
        return Attributes.ofInt("axis", 0);
    }

    private static TensorProto int64(String name, long value) {
        return TensorProto.newBuilder()
                .setName(name)
                .setDataType(ElementTypes.INT64)
                .addDims(1)
                .addInt64Data(value)
                .build();
    }
}
