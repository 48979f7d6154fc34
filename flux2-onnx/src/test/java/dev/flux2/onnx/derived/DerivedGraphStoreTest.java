package dev.flux2.onnx.derived;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.onnx.TestStageContext;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.passes.AccuracyLevelZero;
import dev.flux2.onnx.passes.Fp32Activations;
import dev.flux2.onnx.passes.GraphPass;
import dev.flux2.onnx.session.ExecutionProviders;
import dev.flux2.onnx.session.ManagedSession;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.session.SessionSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The derived graph ({@code cpu_tuned}'s passes) of an fp16, accuracy-level-4 MatMulNBits graph: where it is stored, what it references, that
 * it is reused and re-derived, and that it is at least as accurate as the source.
 */
class DerivedGraphStoreTest {
    /** {@code cpu_tuned=true}'s passes. */
    private static final List<GraphPass> FULL = List.of(Fp32Activations.pass(), AccuracyLevelZero.pass());

    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();
    private static final int K = 256;
    private static final int N = 64;
    private static final int T = 8;

    @TempDir
    Path dir;

    private Fp16MatMulGraph weights;
    private Path bundle;
    private Path graph;
    private GraphSignature signature;

    @BeforeEach
    void writeGraph() throws IOException {
        weights = new Fp16MatMulGraph(K, N, 7);
        bundle = dir.resolve("bundle");
        graph = weights.write(bundle, "transformer.onnx");
        signature = new GraphSignature(
                graph,
                List.of(),
                List.of(),
                Map.of(Fp16MatMulGraph.SHARD, Files.size(bundle.resolve(Fp16MatMulGraph.SHARD))));
    }

    private DerivedGraphStore store() {
        return new DerivedGraphStore(dir.resolve("cache"), true);
    }

    private static ModelProto read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return ModelProto.parseFrom(in);
        }
    }

    private static String location(TensorProto t) {
        return t.getExternalDataList().stream()
                .filter(e -> e.getKey().equals("location"))
                .map(StringStringEntryProto::getValue)
                .findFirst()
                .orElse("");
    }

    @Test
    void theDerivedGraphReferencesTheOriginalShardAndOnlyRetypedScalesAreNewData() throws IOException {
        DerivedGraph tuned = store().derive("transformer", signature, FULL).orElseThrow();
        assertEquals(bundle.resolve(DerivedGraphStore.FOLDER), tuned.graphFile().getParent());
        assertEquals(bundle, tuned.dataFolder());
        ModelProto model = read(tuned.graphFile());
        Map<String, TensorProto> inits = new java.util.HashMap<>();
        model.getGraph().getInitializerList().forEach(t -> inits.put(t.getName(), t));
        assertEquals(Fp16MatMulGraph.SHARD, location(inits.get("w.qweight")), "codes stay in the original shard");
        assertEquals(Fp16MatMulGraph.SHARD, location(inits.get("w.qzeros")));
        assertEquals(TensorProto.DataType.FLOAT_VALUE, inits.get("w.scales").getDataType());
        String scalesLocation = location(inits.get("w.scales"));
        assertTrue(scalesLocation.startsWith(DerivedGraphStore.FOLDER + "/"), scalesLocation);
        assertEquals(TensorProto.DataType.FLOAT_VALUE, inits.get("gain").getDataType(), "inline fp16 widened");
        // The public contract is unchanged: fp16 in, fp16 out.
        assertEquals(
                TensorProto.DataType.FLOAT16_VALUE,
                model.getGraph().getInput(0).getType().getTensorType().getElemType());
        assertEquals("x", model.getGraph().getInput(0).getName());
        assertEquals("y", model.getGraph().getOutput(0).getName());
        assertEquals(
                TensorProto.DataType.FLOAT16_VALUE,
                model.getGraph().getOutput(0).getType().getTensorType().getElemType());
        NodeProto matMul = model.getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals("MatMulNBits"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                0,
                matMul.getAttributeList().stream()
                        .filter(a -> a.getName().equals("accuracy_level"))
                        .findFirst()
                        .orElseThrow()
                        .getI());
        // Only the graph and the widened scales (N·K/16 fp32 values) were written: no weight file was copied.
        Set<String> files = new HashSet<>();
        try (Stream<Path> s = Files.list(bundle.resolve(DerivedGraphStore.FOLDER))) {
            s.forEach(p -> files.add(p.getFileName().toString()));
        }
        assertEquals(2, files.size(), files.toString());
        Path data = bundle.resolve(scalesLocation);
        assertEquals((long) N * (K / 16) * 4, Files.size(data));
        assertTrue(Files.size(tuned.graphFile()) < 4096, "the graph alone: " + Files.size(tuned.graphFile()));
    }

    @Test
    void theDerivedGraphIsAtLeastAsAccurateAsTheSource() throws Exception {
        DerivedGraph tuned = store().derive("transformer", signature, FULL).orElseThrow();
        float[] x = new float[T * K];
        SplittableRandom rnd = new SplittableRandom(3);
        for (int i = 0; i < x.length; i++) {
            x[i] = Fp16Conversions.fp16ToFloat(Fp16Conversions.floatToFp16((float) (2 * rnd.nextDouble() - 1)));
        }
        double[] exact = weights.exact(x, T);
        float[] source = run(new SessionSpec("transformer", graph, Map.of(), OptimizationLevel.ALL), x);
        float[] cpu = run(specOf(tuned), x);
        double sourceError = 0;
        double cpuError = 0;
        for (int i = 0; i < exact.length; i++) {
            // fp32 compute: the only rounding that matters is the fp16 output's, so each value is within one fp16 ulp
            // of the exact result (half an ulp for the rounding, the rest for fp32 accumulation flipping it).
            double ulp = Math.ulp(Fp16Conversions.fp16ToFloat(Fp16Conversions.floatToFp16((float) exact[i]))) * 8192.0;
            assertTrue(
                    Math.abs(cpu[i] - exact[i]) <= Math.max(ulp, 1e-7),
                    "value " + i + ": tuned " + cpu[i] + ", exact " + exact[i] + ", one fp16 ulp " + ulp);
            sourceError += (source[i] - exact[i]) * (source[i] - exact[i]);
            cpuError += (cpu[i] - exact[i]) * (cpu[i] - exact[i]);
        }
        assertTrue(
                cpuError <= sourceError,
                "the fp32, level-0 graph is at least as accurate: squared error " + cpuError + " vs " + sourceError);
    }

    private float[] run(SessionSpec spec, float[] x) throws Exception {
        int before = OpenSessionCounter.current();
        ByteBuffer in = ByteBuffer.allocateDirect(x.length * 2).order(ByteOrder.nativeOrder());
        for (float v : x) {
            in.putShort(Fp16Conversions.floatToFp16(v));
        }
        in.rewind();
        try (ManagedSession session = new SessionFactory(ENV, ExecutionProviders.cpuOnly(), 1).open(spec);
                OnnxTensor xt = OnnxTensor.createTensor(ENV, in, new long[] {1, T, K}, OnnxJavaType.FLOAT16);
                OrtSession.Result r = session.run(
                        new RunCall(Map.of("x", xt), Set.of("y"), Map.of(), "test"), new TestStageContext())) {
            ByteBuffer out = ((OnnxTensor) r.get(0)).getByteBuffer().order(ByteOrder.nativeOrder());
            float[] y = new float[T * N];
            for (int i = 0; i < y.length; i++) {
                y[i] = Fp16Conversions.fp16ToFloat(out.getShort());
            }
            return y;
        } finally {
            assertEquals(before, OpenSessionCounter.current());
        }
    }

    @Test
    void aDerivedGraphIsReusedAndReDerivedWhenTheSourceChanges() throws IOException {
        DerivedGraph first = store().derive("transformer", signature, FULL).orElseThrow();
        FileTime written = Files.getLastModifiedTime(first.graphFile());
        DerivedGraph again = store().derive("transformer", signature, FULL).orElseThrow();
        assertEquals(first.graphFile(), again.graphFile());
        assertEquals(written, Files.getLastModifiedTime(again.graphFile()), "reused, not rewritten");

        // A new download of the graph (another modification time) gives another fingerprint.
        Files.setLastModifiedTime(
                graph, FileTime.fromMillis(Files.getLastModifiedTime(graph).toMillis() + 60_000));
        DerivedGraph changed = store().derive("transformer", signature, FULL).orElseThrow();
        assertNotEquals(first.graphFile(), changed.graphFile());
        assertFalse(Files.exists(first.graphFile()), "the stale derived graph is deleted");
        try (Stream<Path> s = Files.list(bundle.resolve(DerivedGraphStore.FOLDER))) {
            assertEquals(2, s.count(), "one graph and its data");
        }
    }

    /**
     * The stale-cache bug of issue #28: a graph derived by a pass at one version is never served when that pass is
     * at another version (its output changed), nor one derived with other parameters (the {@code -dq} label that
     * meant fp16 products before 2e284b2 and fp32 after).
     */
    @Test
    void aGraphDerivedUnderAnotherPassVersionIsNotServed() throws Exception {
        DerivedGraph v1 = store().derive("transformer", signature, FULL).orElseThrow();
        // The same pass at the next version: here with the same output, so that only the version differs.
        GraphPass bumped =
                new Versioned(Fp32Activations.pass(), Fp32Activations.pass().version() + 1);
        DerivedGraph v2 = store().derive("transformer", signature, List.of(bumped, AccuracyLevelZero.pass()))
                .orElseThrow();
        assertNotEquals(v1.graphFile(), v2.graphFile(), "derived again, not served from the older version's graph");
        assertFalse(Files.exists(v1.graphFile()), "the older version's graph is deleted as stale");
        assertTrue(Files.isRegularFile(v2.graphFile()));
        // Back at the first version: derived again too (the file of version 2 is not taken for it).
        DerivedGraph again = store().derive("transformer", signature, FULL).orElseThrow();
        assertEquals(v1.graphFile(), again.graphFile());
        assertFalse(Files.exists(v2.graphFile()));

        // Parameters count like versions: fp16 and fp32 dequantized products are two derived graphs.
        GraphPass fp32 = dev.flux2.onnx.passes.WeightDequantization.of(
                dev.flux2.onnx.passes.WeightDequantization.ProductPrecision.FP32);
        GraphPass fp16 = dev.flux2.onnx.passes.WeightDequantization.of(
                dev.flux2.onnx.passes.WeightDequantization.ProductPrecision.FP16);
        assertNotEquals(
                GraphFingerprint.of(graph, signature.externalData().keySet(), List.of(fp32)),
                GraphFingerprint.of(graph, signature.externalData().keySet(), List.of(fp16)));
    }

    /** A derivation killed mid-write (kill -9) leaves temporary files: old ones are deleted, a fresh one is not. */
    @Test
    void temporaryFilesLeftByAKilledDerivationAreDeletedOnceOld() throws IOException {
        Path home = Files.createDirectories(bundle.resolve(DerivedGraphStore.FOLDER));
        Path abandoned = Files.write(home.resolve("transformer-0123456789abcdef.data.42.tmp"), new byte[] {1, 2, 3});
        Files.setLastModifiedTime(
                abandoned,
                FileTime.fromMillis(
                        System.currentTimeMillis() - DerivedGraphStore.ABANDONED_AFTER.toMillis() - 60_000));
        Path inProgress = Files.write(home.resolve("text_encoder-0123456789abcdef.onnx.7.tmp"), new byte[] {4});
        store().derive("transformer", signature, FULL).orElseThrow();
        assertFalse(Files.exists(abandoned), "the abandoned temporary file is deleted");
        assertTrue(Files.exists(inProgress), "another derivation's file in progress is kept");
    }

    /** A pass as another version of itself. */
    private record Versioned(GraphPass pass, int version) implements GraphPass {
        @Override
        public String id() {
            return pass.id();
        }

        @Override
        public String parameters() {
            return pass.parameters();
        }

        @Override
        public dev.flux2.onnx.passes.PassOutcome apply(ModelProto model, dev.flux2.onnx.passes.PassContext context)
                throws IOException {
            return pass.apply(model, context);
        }
    }

    @Test
    void aReadOnlyBundleIsTunedInTheCacheFolderThroughHardLinksToItsShards() throws Exception {
        DerivedGraph tuned = new DerivedGraphStore(dir.resolve("cache"), false)
                .derive("transformer", signature, FULL)
                .orElseThrow();
        assertTrue(tuned.dataFolder().startsWith(dir.resolve("cache")));
        Path link = tuned.dataFolder().resolve(Fp16MatMulGraph.SHARD);
        assertTrue(Files.isSameFile(link, bundle.resolve(Fp16MatMulGraph.SHARD)), "the shard is linked, not copied");
        assertEquals(
                2,
                ((Number) Files.getAttribute(link, "unix:nlink")).intValue(),
                "a hard link: ONNX Runtime refuses symbolic links that leave the folder");
        assertFalse(Files.exists(bundle.resolve(DerivedGraphStore.FOLDER)), "nothing written into the bundle");
        float[] x = new float[T * K];
        java.util.Arrays.fill(x, 0.25f);
        float[] cached = run(specOf(tuned), x);
        DerivedGraph beside = store().derive("transformer", signature, FULL).orElseThrow();
        float[] inBundle = run(specOf(beside), x);
        assertEquals(java.util.Arrays.toString(inBundle), java.util.Arrays.toString(cached));
    }

    @Test
    void aSnapshotWhoseShardsAreSymbolicLinksIsTunedInTheCacheFolder() throws Exception {
        Path blobs = dir.resolve("blobs");
        Files.createDirectories(blobs);
        Path blob = blobs.resolve("0123abcd");
        Files.move(bundle.resolve(Fp16MatMulGraph.SHARD), blob);
        Files.createSymbolicLink(bundle.resolve(Fp16MatMulGraph.SHARD), blob);
        DerivedGraph tuned = store().derive("transformer", signature, FULL).orElseThrow();
        assertTrue(
                tuned.dataFolder().startsWith(dir.resolve("cache")),
                tuned.dataFolder().toString());
        assertTrue(Files.isSameFile(tuned.dataFolder().resolve(Fp16MatMulGraph.SHARD), blob));
        float[] x = new float[T * K];
        java.util.Arrays.fill(x, 0.5f);
        float[] y = run(specOf(tuned), x);
        assertTrue(Float.isFinite(y[0]));
    }

    /** The session spec that opens a derived graph with its external data beside the original shards. */
    private static SessionSpec specOf(DerivedGraph graph) {
        return new SessionSpec(
                "transformer", graph.graphFile(), Map.of(), OptimizationLevel.ALL, 0, Optional.of(graph.dataFolder()));
    }
}
