package dev.flux2.onnx.derived;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.passes.AccuracyLevelZero;
import dev.flux2.onnx.passes.AttentionGraphs;
import dev.flux2.onnx.passes.Fp32Activations;
import dev.flux2.onnx.passes.GraphPass;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
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
 * The MHA fusion through the derived-graph store: a graph with attention is derived once and reused, one without
 * is remembered by a marker and runs as it is, and the fused graph's fingerprint differs from the CPU-tuned one's.
 */
class MhaDerivedGraphTest {
    private static final List<GraphPass> MHA_ONLY = List.of(MhaFusion.of(MhaPrecision.FP32));
    private static final List<GraphPass> CPU_AND_MHA =
            List.of(MhaFusion.of(MhaPrecision.FP32), Fp32Activations.pass(), AccuracyLevelZero.pass());

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

    private DerivedGraphStore store() {
        return new DerivedGraphStore(dir.resolve("cache"), true);
    }

    private List<String> derivedFiles() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("bundle").resolve(DerivedGraphStore.FOLDER))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aGraphWithAttentionIsDerivedOnceAndReused() throws IOException {
        GraphSignature source = write("transformer.onnx", AttentionGraphs.seedForm(2, 8, 16));
        DerivedGraph first = store().derive("transformer", source, MHA_ONLY).orElseThrow();
        try (InputStream in = Files.newInputStream(first.graphFile())) {
            assertEquals(1, count(ModelProto.parseFrom(in), "MultiHeadAttention"));
        }
        FileTime written = Files.getLastModifiedTime(first.graphFile());
        DerivedGraph again = store().derive("transformer", source, MHA_ONLY).orElseThrow();
        assertEquals(first.graphFile(), again.graphFile());
        assertEquals(written, Files.getLastModifiedTime(again.graphFile()), "reused, not rewritten");
        // The same source with the CPU edits too is another derived graph (another fingerprint); the first is
        // replaced as stale.
        DerivedGraph both = store().derive("transformer", source, CPU_AND_MHA).orElseThrow();
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
        assertEquals(Optional.empty(), store().derive("transformer", source, MHA_ONLY));
        List<String> files = derivedFiles();
        assertEquals(1, files.size(), files.toString());
        assertTrue(files.get(0).startsWith("transformer-") && files.get(0).endsWith(".unchanged"), files.toString());
        Path marker = dir.resolve("bundle").resolve(DerivedGraphStore.FOLDER).resolve(files.get(0));
        FileTime marked = Files.getLastModifiedTime(marker);
        assertEquals(Optional.empty(), store().derive("transformer", source, MHA_ONLY));
        assertEquals(marked, Files.getLastModifiedTime(marker), "remembered, not parsed again");
    }

    private static long count(ModelProto m, String op) {
        return m.getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals(op))
                .count();
    }
}
