package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.derived.DerivedGraphStore;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backend option {@code weights=dequantized} on a synthetic bundle of the seed layout (4-bit block-16
 * transformer weights): the transformer's weight products run as in-graph dequantization and {@code MatMul} in a
 * derived graph that writes no data file, and the image stays within the CPU path's tolerance of the independent
 * reference and of the packed run ({@code weights=packed} derives nothing).
 */
class DequantizedWeightsPipelineTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    Path root;

    @Test
    void seedLayoutDequantizedMatchesTheReference() throws IOException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("seed"));
        BufferedImage packed = generate(bundle, "packed");
        assertEquals(List.of(), derived(bundle), "weights=packed derives nothing");
        BufferedImage dequantized = generate(bundle, "dequantized");
        List<String> files = derived(bundle);
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.get(0).startsWith("transformer-") && files.get(0).endsWith(".onnx"), files.toString());
        Path graph = bundle.directory().resolve(DerivedGraphStore.FOLDER).resolve(files.get(0));
        assertEquals(0, count(graph, "MatMulNBits"));
        assertTrue(count(graph, "DequantizeLinear") > 0);

        assertTrue(ImageComparison.maxDifference(packed, dequantized) <= ImageComparison.MAX_LSB);
        SyntheticReference ref = bundle.reference();
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] x = ExpectedImage.noiseTokens(42, 4, 4);
        ExpectedImage.denoise(ref, x, ctx, ExpectedImage.Loop.textToImage(64, 64, 4));
        ImageComparison.assertMatches(dequantized, ExpectedImage.decode(ref, x, 4, 4), "dequantized weights 64x64");
    }

    private static BufferedImage generate(SyntheticBundle bundle, String weights) {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.SEQUENTIAL)
                .backendOption("weights", weights)
                .build()) {
            return p.generate(GenerationRequest.builder(PROMPT)
                            .seed(42)
                            .size(64, 64)
                            .build())
                    .first()
                    .image();
        }
    }

    private static List<String> derived(SyntheticBundle bundle) throws IOException {
        Path folder = bundle.directory().resolve(DerivedGraphStore.FOLDER);
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static long count(Path graph, String op) throws IOException {
        try (InputStream in = Files.newInputStream(graph)) {
            return ModelProto.parseFrom(in).getGraph().getNodeList().stream()
                    .map(NodeProto::getOpType)
                    .filter(op::equals)
                    .count();
        }
    }
}
