package dev.flux2.onnx.lora;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.passes.lora.AdaptedLinear;
import dev.flux2.onnx.passes.lora.KleinGraphLayers;
import dev.flux2.testkit.timing.TimingTransformerFiles;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The structural matcher on the testkit's timing transformer (seed layout: MatMulNBits, fused q/k/v). */
class LoraTimingTransformerTest {
    @TempDir
    Path dir;

    /** diffusers' module path → the testkit's weight name (BFL-like: fused qkv, linear1/linear2). */
    static String timingName(String target) {
        return target.replaceAll("attn\\.(to_q|to_k|to_v)$", "img.qkv")
                .replaceAll("attn\\.(add_q_proj|add_k_proj|add_v_proj)$", "txt.qkv")
                .replaceAll("attn\\.to_out\\.0$", "img.out")
                .replaceAll("attn\\.to_add_out$", "txt.out")
                .replaceAll("ff\\.linear_in$", "img.ff_in")
                .replaceAll("ff\\.linear_out$", "img.ff_out")
                .replaceAll("ff_context\\.linear_in$", "txt.ff_in")
                .replaceAll("ff_context\\.linear_out$", "txt.ff_out")
                .replaceAll("attn\\.to_qkv_mlp_proj$", "linear1")
                .replaceAll(
                        "single_transformer_blocks\\.(\\d+)\\.attn\\.to_out$", "single_transformer_blocks.$1.linear2")
                .replace("time_guidance_embed.timestep_embedder.", "time_embed.")
                .replaceAll("(modulation_img|modulation_txt|stream_modulation)\\.linear$", "$1");
    }

    @Test
    void everyMatMulNBitsOfTheSeedLayoutIsNamed() throws Exception {
        TimingTransformerSpec spec = TimingTransformerSpec.builder()
                .heads(2)
                .contextDim(64)
                .blocks(2, 2)
                .build();
        TimingTransformerFiles files = TimingTransformerWriter.write(spec, dir);
        ModelProto m;
        try (InputStream in = Files.newInputStream(files.graphFile())) {
            m = ModelProto.parseFrom(in);
        }
        List<AdaptedLinear> layers = KleinGraphLayers.match(GraphIndex.of(m.getGraph()), "timing");
        assertEquals(spec.linearLayers(), layers.size());
        // The testkit names its weights after the layers (/timing/transformer_blocks.0.img.qkv.qweight …); the
        // matcher never reads them, so they are the independent truth here.
        for (AdaptedLinear l : layers) {
            String weight = m.getGraph().getNode(l.linear().node()).getInput(1);
            String expected = "/timing/" + timingName(l.parts().get(0).target()) + ".qweight";
            assertEquals(expected, weight, l.parts().toString());
        }
    }
}
