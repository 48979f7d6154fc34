package dev.flux2.onnx.passes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import com.google.protobuf.CodedInputStream;
import dev.flux2.testkit.timing.TimingTransformerFiles;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RoPE fusion on the testkit's timing transformer (the seed layout's interleaved-pair RoPE on fp32 q and k after
 * RMSNorm): every q and k rotation of every block becomes one {@code RotaryEmbedding}, the prediction on the CPU
 * provider (ONNX Runtime 1.26 has a CPU {@code RotaryEmbedding}) matches the source graph's, alone and with the fp16
 * MHA fusion (CUDA's {@code attention=auto} form), and a candidate not of the form is left with its reason.
 */
class RopeFusionTest {
    private static final int TEXT = 8;
    private static final int TOKENS = 16;

    @TempDir
    Path dir;

    private TimingTransformerSpec spec;
    private TimingTransformerFiles files;
    private ModelProto source;

    @BeforeEach
    void writeGraph() throws IOException {
        spec = TimingTransformerSpec.builder()
                .heads(4)
                .contextDim(64)
                .blocks(1, 2)
                .headGroups(2)
                // Level 0: fp32 inside MatMulNBits, so that int8 activation steps do not hide what is compared.
                .accuracyLevel(0)
                .build();
        files = TimingTransformerWriter.write(spec, dir);
        try (InputStream in = Files.newInputStream(files.graphFile())) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            source = ModelProto.parseFrom(coded);
        }
    }

    @Test
    void everyQAndKRotationIsOneRotaryEmbeddingAndThePredictionMatches() throws Exception {
        int blocks = spec.doubleBlocks() + spec.singleBlocks();
        PassOutcome o = RopeFusion.fuse(source);
        assertEquals(2 * blocks, o.candidates(), o.summary());
        assertEquals(2 * blocks, o.rewritten(), o.summary());
        assertEquals(2L * blocks, MhaFusionTest.count(o.model(), "RotaryEmbedding"));
        // Each rotation's Sub, Add, four Muls, two Slices and the pairs' Reshape go; only the RoPE Subs were there.
        assertEquals(MhaFusionTest.count(source, "Sub") - 2L * blocks, MhaFusionTest.count(o.model(), "Sub"));
        assertEquals(MhaFusionTest.count(source, "Mul") - 8L * blocks, MhaFusionTest.count(o.model(), "Mul"));
        for (NodeProto n : o.model().getGraph().getNodeList()) {
            if (n.getOpType().equals("RotaryEmbedding")) {
                assertEquals("com.microsoft", n.getDomain());
                assertEquals(4, n.getInputCount());
                assertEquals(
                        1L,
                        n.getAttributeList().stream()
                                .filter(a -> a.getName().equals("interleaved"))
                                .mapToLong(AttributeProto::getI)
                                .sum());
            }
        }
        // One cache for all sites: the cos/sin rows are computed once in the graph.
        assertEquals(
                1L,
                o.model().getGraph().getNodeList().stream()
                        .filter(n -> n.getOpType().equals("Range"))
                        .count());
        assertClose(write(o.model(), "rope"), 1e-3);
    }

    @Test
    void withTheFp16MhaFusionAsThePlanRunsThemOnCuda() throws Exception {
        PassRunner.Run run = PassRunner.run(
                source,
                java.util.List.of(MhaFusion.of(MhaPrecision.FP16), RopeFusion.pass()),
                new PassContext(dir, new NoData()));
        // The runner's order: the RoPE fusion before the MHA fusion, whatever order they are given in.
        assertTrue(run.outcomes().get(0).summary().contains("RoPE candidates fused"), run.describe());
        int blocks = spec.doubleBlocks() + spec.singleBlocks();
        assertEquals(2L * blocks, MhaFusionTest.count(run.model(), "RotaryEmbedding"));
        assertEquals(
                (long) blocks * spec.headGroups(),
                MhaFusionTest.count(run.model(), "MultiHeadAttention"),
                run.describe());
        // The fp16 MHA form alone is 8.2e-4 from the source (MhaTimingTransformerTest); RoPE adds fp32 rounding only.
        assertClose(write(run.model(), "rope-mha16"), 3e-3);
    }

    @Test
    void aCandidateNotOfTheFormIsLeftAloneWithItsReason() {
        // The first rotation joined on axis 3 instead of 4, and one product of the second made a graph output.
        ModelProto.Builder m = source.toBuilder();
        int concat = -1;
        int mul = -1;
        int seen = 0;
        for (int i = 0; i < m.getGraph().getNodeCount(); i++) {
            NodeProto n = m.getGraph().getNode(i);
            if (n.getOpType().equals("Concat")
                    && n.getAttributeList().stream().anyMatch(a -> a.getName().equals("axis") && a.getI() == 4)) {
                if (seen == 0) {
                    concat = i;
                } else if (seen == 1) {
                    String subOut = n.getInput(0);
                    for (int j = 0; j < m.getGraph().getNodeCount(); j++) {
                        if (m.getGraph().getNode(j).getOutput(0).equals(subOut)) {
                            String product = m.getGraph().getNode(j).getInput(0);
                            m.getGraphBuilder()
                                    .addOutput(ValueInfoProto.newBuilder().setName(product));
                        }
                    }
                    mul = i;
                }
                seen++;
            }
        }
        assertTrue(concat >= 0 && mul >= 0);
        NodeProto c = m.getGraph().getNode(concat);
        m.getGraphBuilder()
                .setNode(
                        concat,
                        c.toBuilder()
                                .setAttribute(0, c.getAttribute(0).toBuilder().setI(3)));
        PassOutcome o = RopeFusion.fuse(m.build());
        int blocks = spec.doubleBlocks() + spec.singleBlocks();
        assertEquals(2 * blocks, o.candidates());
        assertEquals(2 * blocks - 2, o.rewritten(), o.summary());
        assertEquals(2, o.leftAlone().size(), o.summary());
        assertTrue(
                o.leftAlone().get(0).endsWith("joins on axis 3, not the pairs' axis 4"),
                o.leftAlone().get(0));
        assertTrue(
                o.leftAlone().get(1).endsWith("a product is read elsewhere"),
                o.leftAlone().get(1));
        assertTrue(
                o.summary().startsWith((2 * blocks - 2) + " of " + 2 * blocks + " RoPE candidates fused"), o.summary());
    }

    @Test
    void aGraphWithoutRopeIsReturnedAsItIs() {
        ModelProto none = AttentionGraphs.plainFp16(4, 16, 8);
        PassOutcome o = RopeFusion.fuse(none);
        assertSame(none, o.model());
        assertEquals(0, o.candidates());
        assertEquals("no RoPE (no Concat of a Sub and an Add)", o.summary());
    }

    private Path write(ModelProto model, String name) throws IOException {
        Path out = files.graphFile().resolveSibling(name + ".onnx");
        try (OutputStream o = Files.newOutputStream(out)) {
            model.writeTo(o);
        }
        return out;
    }

    private void assertClose(Path rewritten, double bound) throws Exception {
        float[] a = TimingStepPrediction.predict(files.graphFile(), TOKENS, TEXT);
        float[] b = TimingStepPrediction.predict(rewritten, TOKENS, TEXT);
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            num += (a[i] - b[i]) * (a[i] - b[i]);
            den += a[i] * a[i];
        }
        double relRms = Math.sqrt(num / den);
        // A wrong rotation (pairs not interleaved, sin's sign, positions off by one) moves the prediction by ~1.
        assertTrue(relRms < bound, "relative RMS difference " + relRms);
    }

    /** No pass here writes external data. */
    private static final class NoData implements PassContext.DataSink {
        @Override
        public String location() {
            return ".flux2/none.data";
        }

        @Override
        public long append(byte[] bytes) {
            throw new AssertionError("no data expected");
        }

        @Override
        public long size() {
            return 0;
        }
    }
}
