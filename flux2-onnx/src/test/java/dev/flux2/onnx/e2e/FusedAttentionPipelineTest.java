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
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backend option {@code attention=fused} on synthetic bundles of the seed layout (fp16 activations, split VAE
 * decoder with its attention chunk graph) and of hlhc's layout (fp32): the VAE decoder's attention is fused, the
 * synthetic transformer (which has no attention) runs as it is, and the image stays within the CPU path's tolerance
 * of the independent reference ({@link ImageComparison}: the fused node computes the chunk's fp32 attention in fp32,
 * only in another summation order, ≈1e-7 relative) and of the unfused run.
 */
class FusedAttentionPipelineTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    Path root;

    @Test
    void seedLayout() throws IOException {
        check(SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("seed")));
    }

    @Test
    void hlhcLayout() throws IOException {
        check(SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().hlhcLayout().build(), root.resolve("hlhc")));
    }

    private static void check(SyntheticBundle bundle) throws IOException {
        // flux2 info's detail: what attention=fused does, per graph.
        String info = new dev.flux2.onnx.OnnxBackendProvider()
                .inspect(bundle.directory())
                .details()
                .get("attention_fusion");
        assertTrue(info.contains("transformer: no attention (no Softmax)"), info);
        assertTrue(info.contains("1 of 1 softmax node fused as attention"), info);
        BufferedImage graph = generate(bundle, "graph");
        assertEquals(Map.of(), derived(bundle), "attention=graph derives nothing");
        BufferedImage fused = generate(bundle, "fused");
        Map<String, FileTime> files = derived(bundle);
        // One derived graph with attention (the VAE decoder's attention graph), one marker for the transformer.
        long graphs = files.keySet().stream().filter(f -> f.endsWith(".onnx")).count();
        assertEquals(1, graphs, files.toString());
        assertTrue(
                files.keySet().stream().anyMatch(f -> f.startsWith("transformer-") && f.endsWith(".unchanged")),
                files.toString());
        Path derivedGraph = bundle.directory()
                .resolve(DerivedGraphStore.FOLDER)
                .resolve(files.keySet().stream()
                        .filter(f -> f.endsWith(".onnx"))
                        .findFirst()
                        .orElseThrow());
        assertEquals(1, count(derivedGraph, "MultiHeadAttention"));
        assertEquals(0, count(derivedGraph, "Softmax"));

        assertTrue(ImageComparison.maxDifference(graph, fused) <= ImageComparison.MAX_LSB);
        SyntheticReference ref = bundle.reference();
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] x = ExpectedImage.noiseTokens(42, 4, 4);
        ExpectedImage.denoise(ref, x, ctx, ExpectedImage.Loop.textToImage(64, 64, 4));
        ImageComparison.assertMatches(fused, ExpectedImage.decode(ref, x, 4, 4), "fused attention 64x64");
        // Reuse and the marker of a graph without attention: FusedGraphStoreTest.
    }

    private static BufferedImage generate(SyntheticBundle bundle, String attention) {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.SEQUENTIAL)
                .backendOption("attention", attention)
                .build()) {
            return p.generate(GenerationRequest.builder(PROMPT)
                            .seed(42)
                            .size(64, 64)
                            .build())
                    .first()
                    .image();
        }
    }

    private static Map<String, FileTime> derived(SyntheticBundle bundle) throws IOException {
        Path folder = bundle.directory().resolve(DerivedGraphStore.FOLDER);
        Map<String, FileTime> files = new TreeMap<>();
        if (Files.isDirectory(folder)) {
            try (Stream<Path> s = Files.list(folder)) {
                for (Path p : s.toList()) {
                    files.put(p.getFileName().toString(), Files.getLastModifiedTime(p));
                }
            }
        }
        return files;
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
