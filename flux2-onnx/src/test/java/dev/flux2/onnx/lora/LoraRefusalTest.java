package dev.flux2.onnx.lora;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.passes.lora.KleinGraphLayers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What LoRA application refuses: layers that do not fit the graph, and graphs whose structure is ambiguous. */
class LoraRefusalTest {
    @TempDir
    static Path folder;

    static TinyKleinGraph tiny;

    @BeforeAll
    static void open() throws Exception {
        tiny = new TinyKleinGraph(folder, "transformer_fused_qkv.onnx");
    }

    @AfterAll
    static void close() throws Exception {
        tiny.close();
    }

    @Test
    void aLayerOfAnotherWidthIsRefusedNamingLayerExpectedAndFound() {
        // The reader's fixtures are 12 wide; the tiny transformer is 32 wide.
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> LoraFactors.feeds(
                        tiny.loraInputs(),
                        List.of(new LoraFactors.Adapter(
                                LoraFiles.read(Path.of("src/test/resources/lora/diffusers_f32.safetensors")), 1.0))));
        assertTrue(
                e.getMessage().contains("diffusers_f32.safetensors")
                        && e.getMessage().contains("expected 32 → ")
                        && e.getMessage().contains("found 12 → "),
                e.getMessage());
    }

    @Test
    void aLayerTheGraphDoesNotHaveIsRefused() {
        // kohya_f32 adapts single_blocks_2 (the tiny transformer has two single blocks) and 12-wide layers.
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> LoraFactors.feeds(
                        tiny.loraInputs(),
                        List.of(new LoraFactors.Adapter(
                                LoraFiles.read(Path.of("src/test/resources/lora/kohya_f32.safetensors")), 0.5))));
        assertTrue(
                e.getMessage().contains("kohya_f32.safetensors")
                        && e.getMessage().contains("layer "),
                e.getMessage());
    }

    @Test
    void aGraphWithAnExtraLinearLayerIsRefusedNamingTheLayer() throws Exception {
        ModelProto m =
                ModelProto.parseFrom(Files.readAllBytes(TinyKleinGraph.FIXTURES.resolve("transformer_fused_qkv.onnx")));
        GraphProto.Builder g = m.getGraph().toBuilder();
        // A second output projection after proj_out: two linears now qualify for the place of proj_out.
        String out = g.getOutput(0).getName();
        for (int i = 0; i < g.getNodeCount(); i++) {
            NodeProto n = g.getNode(i);
            for (int j = 0; j < n.getOutputCount(); j++) {
                if (n.getOutput(j).equals(out)) {
                    g.setNode(i, n.toBuilder().setOutput(j, "before_extra").build());
                }
            }
        }
        g.addInitializer(TensorProto.newBuilder()
                .setName("extra_w")
                .setDataType(TensorProto.DataType.FLOAT_VALUE)
                .addDims(128)
                .addDims(128)
                .addAllFloatData(java.util.Collections.nCopies(128 * 128, 0f)));
        g.addNode(NodeProto.newBuilder()
                .setOpType("MatMul")
                .setName("extra")
                .addInput("before_extra")
                .addInput("extra_w")
                .addOutput(out));
        ModelLoadException e = assertThrows(
                ModelLoadException.class, () -> KleinGraphLayers.match(GraphIndex.of(g.build()), "extra.onnx"));
        assertTrue(
                e.getMessage().contains("extra.onnx")
                        && e.getMessage().contains("expected")
                        && e.getMessage().contains("found"),
                e.getMessage());
    }

    @Test
    void aGraphWithoutTheJointAttentionIsRefused() throws Exception {
        ModelProto m =
                ModelProto.parseFrom(Files.readAllBytes(TinyKleinGraph.FIXTURES.resolve("transformer_fused_qkv.onnx")));
        GraphProto.Builder g = m.getGraph().toBuilder();
        for (int i = 0; i < g.getNodeCount(); i++) {
            if (g.getNode(i).getOpType().equals("Softmax")) {
                g.setNode(i, g.getNode(i).toBuilder().setOpType("Sigmoid").build());
            }
        }
        ModelLoadException e = assertThrows(
                ModelLoadException.class, () -> KleinGraphLayers.match(GraphIndex.of(g.build()), "vae.onnx"));
        assertTrue(e.getMessage().contains("no attention found"), e.getMessage());
    }
}
