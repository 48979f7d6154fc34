package dev.flux2.bench.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.testkit.timing.FullSizeBundle;
import dev.flux2.testkit.timing.FullSizeBundleSpec;
import dev.flux2.testkit.timing.FullSizeBundleWriter;
import dev.flux2.testkit.timing.TextEncoderShape;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.VaeDecoderShape;
import java.awt.image.BufferedImage;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The full-size bundle's writer on a scaled-down spec (the full one writes 5 GB and is written on the GPU machine
 * only): the graphs have the decoder layers, projections and VAE channels the spec asks for, the config describes
 * them, and the pipeline runs the bundle end to end on the CPU.
 */
class FullSizeBundleWriterTest {
    /** Two Qwen3-style layers of width 32 (2 query heads, 1 key/value head of 16), context from both: 64 features. */
    private static final TextEncoderShape TEXT = new TextEncoderShape(2, 32, 2, 1, 16, 48, 151_936, List.of(1, 2));
    /** FLUX.2's decoder plan at 1/16 of the channels. */
    private static final VaeDecoderShape VAE = new VaeDecoderShape(32, List.of(8, 16, 32, 32), 3, 4);

    @Test
    void scaledDownBundleHasTheShapesAndRunsEndToEnd(@TempDir Path dir) throws Exception {
        FullSizeBundle bundle = FullSizeBundleWriter.write(
                FullSizeBundleSpec.builder()
                        .transformer(TimingTransformerSpec.tiny())
                        .textEncoder(TEXT)
                        .vaeDecoder(VAE)
                        .defaultSize(64, 32)
                        .textSequenceLength(16)
                        .vaeChunkSize(64)
                        .build(),
                dir);
        ModelProto te = read(dir.resolve("flux2-klein-4b-text-encoder-q4.onnx"));
        assertEquals(2 * 7, count(te, "MatMulNBits"));
        assertEquals(2 * 7, bundle.textEncoderLinears());
        // q·kᵀ and probs·v per layer
        assertEquals(2 * 2, count(te, "MatMul"));
        assertEquals(List.of(151_936L, 32L), initializerDims(te, "model.embed_tokens.weight"));
        // Convs: a ResNet has 2 (3 where its channels change: the 1×1 shortcut), an upsampler 1. pre: conv_in + the
        // mid block's first ResNet; post 0: the attention's output projection, the mid block's second ResNet, 3
        // ResNets at H/8, an upsampler, 3 at H/4, an upsampler, 3 at H/2 (the first changes 32 → 16); post 1: an
        // upsampler and a ResNet 16 → 8; post 2: 2 ResNets; post 3: conv_out
        assertEquals(3, count(read(dir.resolve("flux2-klein-4b-vae-decoder-pre-attn-fp16.onnx")), "Conv"));
        assertEquals(24, count(read(dir.resolve("flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx")), "Conv"));
        assertEquals(4, count(read(dir.resolve("flux2-klein-4b-vae-decoder-post-stage1-fp16.onnx")), "Conv"));
        assertEquals(4, count(read(dir.resolve("flux2-klein-4b-vae-decoder-post-stage2-fp16.onnx")), "Conv"));
        assertEquals(1, count(read(dir.resolve("flux2-klein-4b-vae-decoder-post-stage3-fp16.onnx")), "Conv"));
        ModelProto post0 = read(dir.resolve("flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx"));
        assertEquals(16, declaredDim(post0.getGraph().getOutput(0), 1));
        assertEquals(32, declaredDim(post0.getGraph().getInput(0), 1));

        JsonNode models = new ObjectMapper()
                .readTree(dir.resolve("flux2-config.json").toFile())
                .get("models");
        JsonNode q = models.get("text_encoder").get("quantization");
        assertEquals(14, q.get("matmul_nbits_nodes").asInt());
        assertEquals(4, q.get("remaining_matmul_nodes").asInt());
        long shards = Files.size(dir.resolve("text-encoder-q4-00001.onnx_data"))
                + Files.size(dir.resolve("text-encoder-q4-00002.onnx_data"));
        assertEquals(
                shards,
                models.get("text_encoder").get("shards").get("total_bytes").asLong());
        assertEquals(32, models.get("vae_decoder_attn_chunk").get("head_dim").asInt());
        assertEquals(
                Files.size(dir.resolve("flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx")),
                models.get("vae_decoder_post_stage_0")
                        .get("shards")
                        .get("onnx_bytes")
                        .asLong());

        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(dir).build()) {
            GenerationResult r = pipeline.generate(GenerationRequest.builder()
                    .prompt("a lighthouse at dusk")
                    .size(64, 32)
                    .seed(3)
                    .build());
            BufferedImage image = r.first().image();
            assertEquals(64, image.getWidth());
            assertEquals(32, image.getHeight());
            int distinct = (int) java.util.stream.IntStream.range(0, 64 * 32)
                    .map(i -> image.getRGB(i % 64, i / 64))
                    .distinct()
                    .count();
            assertTrue(distinct > 16, "the decoder's random weights give a varied image, got " + distinct + " colours");
        }
    }

    private static ModelProto read(Path file) throws Exception {
        try (InputStream in = Files.newInputStream(file)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            return ModelProto.parseFrom(coded);
        }
    }

    private static int count(ModelProto m, String op) {
        int n = 0;
        for (NodeProto node : m.getGraph().getNodeList()) {
            if (node.getOpType().equals(op)) {
                n++;
            }
        }
        return n;
    }

    private static List<Long> initializerDims(ModelProto m, String name) {
        return m.getGraph().getInitializerList().stream()
                .filter(t -> t.getName().equals(name))
                .findFirst()
                .orElseThrow()
                .getDimsList();
    }

    private static long declaredDim(ValueInfoProto v, int axis) {
        return v.getType().getTensorType().getShape().getDim(axis).getDimValue();
    }
}
