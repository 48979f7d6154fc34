package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import dev.flux2.onnx.graph.FreshNames;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import dev.flux2.onnx.passes.lora.AdaptedLinear;
import dev.flux2.onnx.passes.lora.KleinGraphLayers;
import dev.flux2.onnx.passes.lora.LoraSlot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts a low-rank branch beside every linear layer of the transformer: {@code y = base(x) + (x·a)·b}, where
 * {@code a} [in, r] and {@code b} [r, out] are new graph inputs of a dynamic rank r ({@code LoraSlot} names them).
 * The adapters' factors, scales folded into {@code a}, are fed per run, so that switching adapters or scales
 * re-creates no session; several adapters stack along r. The base product is left as it is (plain, {@code Gemm} or
 * {@code MatMulNBits}): the branch is exact where merging into quantized weights would not be. Layers are found by
 * structure ({@code KleinGraphLayers}); a graph whose layers cannot all be identified is refused. Used only for
 * requests with LoRAs: requests without keep the base graph.
 */
public final class LoraBranches implements GraphPass {
    /** The pass's id. */
    public static final String ID = "lora-branches";

    /** Raised whenever the pass writes anything different for the same input. */
    static final int VERSION = 1;

    private static final LoraBranches INSTANCE = new LoraBranches();

    private LoraBranches() {}

    /** @return the pass */
    public static LoraBranches pass() {
        return INSTANCE;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public int version() {
        return VERSION;
    }

    /**
     * @throws dev.flux2.api.ModelLoadException when a layer cannot be identified by structure
     */
    @Override
    public PassOutcome apply(ModelProto model, PassContext context) {
        GraphProto graph = model.getGraph();
        GraphIndex index = GraphIndex.of(graph);
        List<AdaptedLinear> layers = KleinGraphLayers.match(index, "the transformer graph");
        FreshNames names = FreshNames.of(graph);
        Map<Integer, List<NodeProto>> after = new HashMap<>();
        Map<Integer, String> renamed = new HashMap<>();
        GraphProto.Builder g = graph.toBuilder();
        for (AdaptedLinear layer : layers) {
            LoraSlot slot = LoraSlot.of(layer);
            int node = layer.linear().node();
            String y = layer.linear().output();
            String base = names.fresh(y + "/base");
            String t = names.fresh(y + "/lora_down");
            String u = names.fresh(y + "/lora_up");
            String rank = slot.rankDimension();
            int type = layer.linear().elementType();
            g.addInput(input(slot.downInput(), type, layer.linear().inFeatures(), rank));
            g.addInput(input(slot.upInput(), type, rank, layer.linear().outFeatures()));
            renamed.put(node, base);
            after.put(
                    node,
                    List.of(
                            Nodes.node(
                                    names.fresh(slot.target() + "/lora_a"),
                                    "MatMul",
                                    List.of(layer.linear().input(), slot.downInput()),
                                    t,
                                    List.of()),
                            Nodes.node(
                                    names.fresh(slot.target() + "/lora_b"),
                                    "MatMul",
                                    List.of(t, slot.upInput()),
                                    u,
                                    List.of()),
                            Nodes.node(
                                    names.fresh(slot.target() + "/lora_add"), "Add", List.of(base, u), y, List.of())));
        }
        g.clearNode();
        for (int i = 0; i < graph.getNodeCount(); i++) {
            NodeProto n = graph.getNode(i);
            String base = renamed.get(i);
            g.addNode(base == null ? n : n.toBuilder().setOutput(0, base).build());
            after.getOrDefault(i, List.of()).forEach(g::addNode);
        }
        // A declared shape of the renamed product still holds for the sum: keep value_info as it is.
        ModelProto out = model.toBuilder().setGraph(g).build();
        return new PassOutcome(
                out,
                layers.size(),
                layers.size(),
                List.of(),
                "lora-branches: a low-rank branch beside " + layers.size() + " linear layers");
    }

    private static ValueInfoProto input(String name, int type, Object rows, Object cols) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (Object d : new Object[] {rows, cols}) {
            TensorShapeProto.Dimension.Builder dim = TensorShapeProto.Dimension.newBuilder();
            if (d instanceof Integer i) {
                dim.setDimValue(i);
            } else {
                dim.setDimParam((String) d);
            }
            shape.addDim(dim);
        }
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(
                                TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape)))
                .build();
    }
}
