package dev.flux2.testkit;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns a synthetic graph built with the seed's tensor names into hlhc's export ({@link ExportLayout#HLHC}): its
 * tensor names and input order (from hlhc's model card), and, for the graphs whose weights the builders keep inline,
 * the weights moved into the graph's one {@code <graph>.onnx.data} file, as {@code onnx.save(...,
 * save_as_external_data=True)} writes it. The computed function is unchanged.
 */
final class HlhcExport {
    /** Initializers of at least this many bytes move to the external-data file (smaller ones stay inline). */
    static final int EXTERNAL_THRESHOLD_BYTES = 64;

    private HlhcExport() {}

    /**
     * @param graph which graph
     * @return seed name → hlhc name, for the inputs and outputs hlhc names differently
     */
    static Map<String, String> renames(BundleGraph graph) {
        return switch (graph) {
            case TEXT_ENCODER -> Map.of("ctx", "prompt_embeds");
            case TRANSFORMER ->
                Map.of(
                        "x", "hidden_states",
                        "x_ids", "img_ids",
                        "timesteps", "timestep",
                        "ctx", "encoder_hidden_states",
                        "ctx_ids", "txt_ids",
                        "pred", "noise_pred");
            case VAE_DECODER -> Map.of("z", "latents");
            case VAE_ENCODER -> Map.of("z", "latents");
            default -> throw new IllegalArgumentException("the hlhc export has no " + graph.key() + " graph");
        };
    }

    /** hlhc's transformer input order: hidden_states, encoder_hidden_states, timestep, img_ids, txt_ids. */
    private static final List<String> TRANSFORMER_ORDER =
            List.of("hidden_states", "encoder_hidden_states", "timestep", "img_ids", "txt_ids");

    /**
     * @param graph which graph
     * @param model the graph with the seed's names
     * @return the graph with hlhc's names and input order
     */
    static ModelProto rename(BundleGraph graph, ModelProto model) {
        Map<String, String> names = renames(graph);
        GraphProto.Builder g = model.getGraph().toBuilder();
        List<ValueInfoProto> inputs = new ArrayList<>();
        for (ValueInfoProto v : g.getInputList()) {
            inputs.add(v.toBuilder()
                    .setName(names.getOrDefault(v.getName(), v.getName()))
                    .build());
        }
        if (graph == BundleGraph.TRANSFORMER) {
            inputs.sort((a, b) ->
                    Integer.compare(TRANSFORMER_ORDER.indexOf(a.getName()), TRANSFORMER_ORDER.indexOf(b.getName())));
        }
        g.clearInput().addAllInput(inputs);
        for (int i = 0; i < g.getOutputCount(); i++) {
            ValueInfoProto v = g.getOutput(i);
            g.setOutput(i, v.toBuilder().setName(names.getOrDefault(v.getName(), v.getName())));
        }
        for (int i = 0; i < g.getNodeCount(); i++) {
            NodeProto.Builder n = g.getNode(i).toBuilder();
            for (int j = 0; j < n.getInputCount(); j++) {
                n.setInput(j, names.getOrDefault(n.getInput(j), n.getInput(j)));
            }
            for (int j = 0; j < n.getOutputCount(); j++) {
                n.setOutput(j, names.getOrDefault(n.getOutput(j), n.getOutput(j)));
            }
            g.setNode(i, n);
        }
        return model.toBuilder().setGraph(g).build();
    }

    /**
     * Moves every inline initializer of at least {@link #EXTERNAL_THRESHOLD_BYTES} into one external-data file.
     *
     * @param model a graph with inline weights
     * @param directory the folder of the graph file
     * @param dataFile the external-data file name
     * @return the graph referencing the file
     */
    static ModelProto externalize(ModelProto model, Path directory, String dataFile) {
        GraphProto.Builder g = model.getGraph().toBuilder();
        try (ExternalDataWriter writer = new ExternalDataWriter(directory, List.of(dataFile))) {
            for (int i = 0; i < g.getInitializerCount(); i++) {
                TensorProto t = g.getInitializer(i);
                if (t.getDataLocation() == TensorProto.DataLocation.EXTERNAL
                        || t.getRawData().size() < EXTERNAL_THRESHOLD_BYTES) {
                    continue;
                }
                ExternalRef ref = writer.append(0, t.getRawData().toByteArray());
                g.setInitializer(
                        i,
                        t.toBuilder()
                                .clearRawData()
                                .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                                .addExternalData(GraphBuilder.entry("location", ref.location()))
                                .addExternalData(GraphBuilder.entry("offset", Long.toString(ref.offset())))
                                .addExternalData(GraphBuilder.entry("length", Long.toString(ref.length()))));
            }
        }
        return model.toBuilder().setGraph(g).build();
    }
}
