package dev.flux2.onnx.lora;

import static dev.flux2.onnx.lora.LoraGraphTest.adapter;
import static dev.flux2.onnx.lora.LoraGraphTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.passes.lora.AdaptedLinear;
import dev.flux2.onnx.passes.lora.KleinGraphLayers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same tiny transformer with q, k and v fused into one product per stream and split by columns (BFL's layout,
 * the structure of the q4 seed export): the branch of a fused product carries the q, k and v updates in its
 * columns, and the predictions equal diffusers' (which computes them separately) as on the unfused graph.
 */
class LoraFusedQkvTest {
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
    void theFusedProductsAreFoundWithTheirColumns() throws Exception {
        ModelProto m =
                ModelProto.parseFrom(Files.readAllBytes(TinyKleinGraph.FIXTURES.resolve("transformer_fused_qkv.onnx")));
        List<AdaptedLinear> layers = KleinGraphLayers.match(GraphIndex.of(m.getGraph()), "fused");
        AdaptedLinear img = layers.stream()
                .filter(l -> l.parts().get(0).target().equals("transformer_blocks.1.attn.to_q"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                List.of(
                        new AdaptedLinear.Part("transformer_blocks.1.attn.to_q", 0, 32),
                        new AdaptedLinear.Part("transformer_blocks.1.attn.to_k", 32, 64),
                        new AdaptedLinear.Part("transformer_blocks.1.attn.to_v", 64, 96)),
                img.parts());
        assertEquals(37 - 8, layers.size(), "two double blocks × two streams: three products became one");
    }

    @Test
    void everyLayoutAndAStackMatchDiffusers() throws Exception {
        assertClose(tiny.ref("base"), tiny.predictBase(), "base");
        for (String name : List.of("diffusers_all", "bfl", "kohya")) {
            assertClose(tiny.ref(name), tiny.predict(List.of(adapter(name + ".safetensors", 1.0))), name);
        }
        assertClose(
                tiny.ref("stack"),
                tiny.predict(List.of(adapter("diffusers_all.safetensors", 0.7), adapter("kohya.safetensors", -0.4))),
                "stack");
        assertArrayEquals(tiny.predictBase(), tiny.predict(List.of(adapter("bfl.safetensors", 0.0))));
    }
}
