package dev.flux2.onnx.passes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The MHA fusion on small attention graphs of each form, against a double-precision computation written here:
 * softmax(s·q·kᵀ)·v per head.
 */
class MhaFusionTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();
    private static final int HEADS = 3;
    private static final int SEQ = 40;
    private static final int HEAD_DIM = 32;

    static long count(ModelProto m, String op) {
        return m.getGraph().getNodeList().stream()
                .map(NodeProto::getOpType)
                .filter(op::equals)
                .count();
    }

    @Test
    void thePlainFp16FormIsFusedAndAtLeastAsAccurate() throws Exception {
        ModelProto source = AttentionGraphs.plainFp16(HEADS, SEQ, HEAD_DIM);
        MhaFusion.Fused f = MhaFusion.fuse(source, MhaPrecision.FP32);
        assertEquals(1, f.result().fused(), f.result().describe());
        assertEquals(1, count(f.model(), "MultiHeadAttention"));
        assertEquals(0, count(f.model(), "Softmax"));
        assertEquals(0, count(f.model(), "MatMul"));
        // The graph divides by √H as an fp16 constant: that rounded divisor is the function it specifies.
        double divisor = Fp16Conversions.fp16ToFloat(Fp16Conversions.floatToFp16((float) Math.sqrt(HEAD_DIM)));
        assertFused(source, f.model(), true, 1 / divisor, true);
    }

    @Test
    void theSeedFormIsFusedWithBothSplitScalesInTheFusedScale() throws Exception {
        ModelProto source = AttentionGraphs.seedForm(HEADS, SEQ, HEAD_DIM);
        MhaFusion.Fused f = MhaFusion.fuse(source, MhaPrecision.FP32);
        assertEquals(1, f.result().fused(), f.result().describe());
        NodeProto mha = f.model().getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals("MultiHeadAttention"))
                .findFirst()
                .orElseThrow();
        assertEquals("com.microsoft", mha.getDomain());
        float scale = mha.getAttributeList().stream()
                .filter(a -> a.getName().equals("scale"))
                .findFirst()
                .orElseThrow()
                .getF();
        // (H^-0.25)² = 1/√H, folded from the two Mul nodes, which are gone.
        assertEquals(1 / Math.sqrt(HEAD_DIM), scale, 1e-6);
        assertEquals(0, count(f.model(), "Mul"));
        assertFused(source, f.model(), true, 1 / Math.sqrt(HEAD_DIM), true);
    }

    @Test
    void theVaeChunkFormWithKTransposedAsInputIsFused() throws Exception {
        ModelProto source = AttentionGraphs.vaeChunk(SEQ, HEAD_DIM);
        MhaFusion.Fused f = MhaFusion.fuse(source, MhaPrecision.FP32);
        assertEquals(1, f.result().fused(), f.result().describe());
        assertFused(source, f.model(), false, 1.0, false);
    }

    @Test
    void maskedAttentionIsLeftWithAReason() {
        ModelProto source = AttentionGraphs.masked(HEADS, SEQ, HEAD_DIM);
        MhaFusion.Fused f = MhaFusion.fuse(source, MhaPrecision.FP32);
        assertEquals(0, f.result().fused());
        assertEquals(1, f.result().candidates());
        assertSame(source, f.model(), "unchanged");
        assertTrue(
                f.result().describe().contains("not q·kᵀ (a MatMul) but Add"),
                f.result().describe());
    }

    @Test
    void aGraphWithoutAttentionIsReturnedAsItIs() {
        ModelProto source = AttentionGraphs.noAttention(HEADS, SEQ);
        MhaFusion.Fused f = MhaFusion.fuse(source, MhaPrecision.FP32);
        assertSame(source, f.model());
        assertEquals(0, f.result().candidates());
        assertEquals("no attention (no Softmax)", f.result().describe());
    }

    /**
     * Runs the source and the fused graph on the same random inputs and compares both with the exact result.
     *
     * <p>Tolerances: the fused node computes in fp32 and rounds once to the output type. For fp16 outputs of
     * magnitude ≤ 1 (v is in [−1, 1] and the output a convex combination of v) half an fp16 ulp is ≤ 2^-12 ≈ 2.4e-4;
     * fp32 accumulation over {@value #SEQ} terms adds ~1e-6, so 3e-4 bounds the fused error. For fp32 outputs the
     * bound is fp32 accumulation alone: 1e-5. The source, rounding scores or probabilities to fp16, can only be less
     * accurate, which the RMS comparison checks.
     */
    private static void assertFused(
            ModelProto source, ModelProto fused, boolean fp16Inputs, double scale, boolean fp16Output)
            throws Exception {
        SplittableRandom rnd = new SplittableRandom(11);
        Map<String, float[]> in = new HashMap<>();
        String[] names = fp16Inputs || source.getGraph().getInput(1).getName().equals("k")
                ? new String[] {"q", "k", "v"}
                : new String[] {"q", "kt", "v"};
        int heads = fp16Inputs ? HEADS : 1;
        for (String n : names) {
            float[] x = new float[heads * SEQ * HEAD_DIM];
            for (int i = 0; i < x.length; i++) {
                // q and k up to ±3: scores up to ~3·3·32/√32 ≈ 51 before the scale, far from fp16's 65504.
                double range = n.equals("v") ? 1 : 3;
                x[i] = Fp16Conversions.fp16ToFloat(
                        Fp16Conversions.floatToFp16((float) (range * (2 * rnd.nextDouble() - 1))));
            }
            in.put(n, x);
        }
        double[] exact = exact(in.get(names[0]), in.get(names[1]), in.get("v"), heads, scale, names[1].equals("kt"));
        float[] a = run(source, in, fp16Inputs, fp16Output);
        float[] b = run(fused, in, fp16Inputs, fp16Output);
        double bound = fp16Output ? 3e-4 : 1e-5;
        double sourceSq = 0;
        double fusedSq = 0;
        for (int i = 0; i < exact.length; i++) {
            assertTrue(Math.abs(b[i] - exact[i]) <= bound, "value " + i + ": fused " + b[i] + ", exact " + exact[i]);
            sourceSq += (a[i] - exact[i]) * (a[i] - exact[i]);
            fusedSq += (b[i] - exact[i]) * (b[i] - exact[i]);
        }
        assertTrue(fusedSq <= sourceSq * 1.0001 + 1e-12, "fused squared error " + fusedSq + " vs source " + sourceSq);
    }

    private static double[] exact(float[] q, float[] k, float[] v, int heads, double scale, boolean kTransposed) {
        double[] out = new double[heads * SEQ * HEAD_DIM];
        for (int h = 0; h < heads; h++) {
            int base = h * SEQ * HEAD_DIM;
            for (int i = 0; i < SEQ; i++) {
                double[] s = new double[SEQ];
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < SEQ; j++) {
                    double dot = 0;
                    for (int d = 0; d < HEAD_DIM; d++) {
                        double kv = kTransposed ? k[base + d * SEQ + j] : k[base + j * HEAD_DIM + d];
                        dot += q[base + i * HEAD_DIM + d] * kv;
                    }
                    s[j] = dot * scale;
                    max = Math.max(max, s[j]);
                }
                double sum = 0;
                for (int j = 0; j < SEQ; j++) {
                    s[j] = Math.exp(s[j] - max);
                    sum += s[j];
                }
                for (int d = 0; d < HEAD_DIM; d++) {
                    double acc = 0;
                    for (int j = 0; j < SEQ; j++) {
                        acc += s[j] / sum * v[base + j * HEAD_DIM + d];
                    }
                    out[base + i * HEAD_DIM + d] = acc;
                }
            }
        }
        return out;
    }

    private static float[] run(ModelProto model, Map<String, float[]> inputs, boolean fp16In, boolean fp16Out)
            throws Exception {
        Map<String, OnnxTensor> feeds = new HashMap<>();
        try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions();
                OrtSession session = ENV.createSession(model.toByteArray(), opts)) {
            for (var e : inputs.entrySet()) {
                long[] shape = session.getInputInfo().get(e.getKey()).getInfo() instanceof ai.onnxruntime.TensorInfo t
                        ? t.getShape()
                        : null;
                // The one symbolic axis any test declares is the heads axis.
                shape = java.util.Arrays.stream(shape)
                        .map(d -> d < 0 ? HEADS : d)
                        .toArray();
                ByteBuffer b = ByteBuffer.allocateDirect(e.getValue().length * (fp16In ? 2 : 4))
                        .order(ByteOrder.nativeOrder());
                for (float x : e.getValue()) {
                    if (fp16In) {
                        b.putShort(Fp16Conversions.floatToFp16(x));
                    } else {
                        b.putFloat(x);
                    }
                }
                b.rewind();
                feeds.put(
                        e.getKey(),
                        OnnxTensor.createTensor(ENV, b, shape, fp16In ? OnnxJavaType.FLOAT16 : OnnxJavaType.FLOAT));
            }
            try (OrtSession.Result r = session.run(feeds)) {
                ByteBuffer out = ((OnnxTensor) r.get(0)).getByteBuffer().order(ByteOrder.nativeOrder());
                float[] y = new float[out.remaining() / (fp16Out ? 2 : 4)];
                for (int i = 0; i < y.length; i++) {
                    y[i] = fp16Out ? Fp16Conversions.fp16ToFloat(out.getShort()) : out.getFloat();
                }
                return y;
            }
        } finally {
            feeds.values().forEach(OnnxTensor::close);
        }
    }
}
