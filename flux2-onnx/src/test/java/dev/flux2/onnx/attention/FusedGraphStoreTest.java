package dev.flux2.onnx.attention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.tuning.CpuTuning;
import dev.flux2.onnx.tuning.TunedGraph;
import dev.flux2.onnx.tuning.TunedGraphStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fused attention through the derived-graph store: a graph with attention is derived once and reused, one without
 * is remembered by a marker and runs as it is, and the fused graph's fingerprint differs from the CPU-tuned one's.
 */
class FusedGraphStoreTest {
    @TempDir
    Path dir;

    private GraphSignature write(String name, ModelProto model) throws IOException {
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        Path file = bundle.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            model.writeTo(out);
        }
        return new GraphSignature(file, List.of(), List.of(), Map.of());
    }

    private TunedGraphStore store() {
        return new TunedGraphStore(dir.resolve("cache"), true);
    }

    private List<String> derivedFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("bundle").resolve(TunedGraphStore.FOLDER))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aGraphWithAttentionIsDerivedOnceAndReused() throws IOException {
        GraphSignature source = write("transformer.onnx", AttentionGraphs.seedForm(2, 8, 16));
        TunedGraph first = store().deriveIfChanged("transformer", source, CpuTuning.ATTENTION_ONLY)
                .orElseThrow();
        try (InputStream in = Files.newInputStream(first.graphFile())) {
            assertEquals(1, AttentionFuserTest.count(ModelProto.parseFrom(in), "MultiHeadAttention"));
        }
        FileTime written = Files.getLastModifiedTime(first.graphFile());
        TunedGraph again = store().deriveIfChanged("transformer", source, CpuTuning.ATTENTION_ONLY)
                .orElseThrow();
        assertEquals(first.graphFile(), again.graphFile());
        assertEquals(written, Files.getLastModifiedTime(again.graphFile()), "reused, not rewritten");
        // The same source with the CPU edits too is another derived graph (another fingerprint); the first is
        // replaced as stale.
        TunedGraph both = store().derive("transformer", source, CpuTuning.FULL.withFusedAttention(true));
        assertNotEquals(first.graphFile(), both.graphFile());
        assertEquals(List.of(both.graphFile().getFileName().toString()), derivedFiles());
        // fp32 activations after the fusion keep the graph consistent: ONNX Runtime checks every node's types when
        // it opens the session.
        var env = ai.onnxruntime.OrtEnvironment.getEnvironment();
        try (var opts = new ai.onnxruntime.OrtSession.SessionOptions();
                var session = env.createSession(both.graphFile().toString(), opts)) {
            assertEquals(java.util.Set.of("q", "k", "v"), session.getInputNames());
        } catch (ai.onnxruntime.OrtException e) {
            throw new AssertionError("the CPU-tuned fused graph does not open: " + e.getMessage(), e);
        }
    }

    @Test
    void aGraphWithoutAttentionRunsAsItIsAndIsNotLookedAtAgain() throws IOException {
        GraphSignature source = write("transformer.onnx", AttentionGraphs.masked(2, 8, 16));
        assertEquals(Optional.empty(), store().deriveIfChanged("transformer", source, CpuTuning.ATTENTION_ONLY));
        List<String> files = derivedFiles();
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.get(0).startsWith("transformer-") && files.get(0).endsWith(".unchanged"), files.toString());
        Path marker = dir.resolve("bundle").resolve(TunedGraphStore.FOLDER).resolve(files.get(0));
        FileTime marked = Files.getLastModifiedTime(marker);
        assertEquals(Optional.empty(), store().deriveIfChanged("transformer", source, CpuTuning.ATTENTION_ONLY));
        assertEquals(marked, Files.getLastModifiedTime(marker), "remembered, not parsed again");
    }
}
