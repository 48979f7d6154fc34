package dev.flux2.bench.timing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testkit.Fp16;
import dev.flux2.testkit.SeedConfig;
import dev.flux2.testkit.timing.TimingTransformerFiles;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ShortBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The realistic-width timing transformer: I/O contract, that it runs, and that its size matches the real one. */
class TimingTransformerGraphTest {
    private static final int TEXT = 8;
    private static final int GRID = 4;
    private static final int TOKENS = GRID * GRID;

    @TempDir
    static Path dir;

    private static TimingTransformerFiles files;

    @BeforeAll
    static void write() {
        files = TimingTransformerWriter.write(TimingTransformerSpec.tiny(), dir);
    }

    @Test
    void kleinWidthWith5Plus20BlocksHasTheRealLayerCountAndWeightBytes() throws Exception {
        TimingTransformerSpec klein = TimingTransformerSpec.builder()
                .blocks(TimingTransformerSpec.KLEIN_DOUBLE_BLOCKS, TimingTransformerSpec.KLEIN_SINGLE_BLOCKS)
                .build();
        JsonNode transformer = seedConfig().get("models").get("transformer");
        assertEquals(transformer.get("quantization").get("matmul_nbits_nodes").asInt(), klein.linearLayers());
        long realBytes = transformer.get("shards").get("total_bytes").asLong();
        // The real shards also hold the RMSNorm weights and alignment padding: within 0.1 %.
        double relative = Math.abs(klein.weightBytes() - realBytes) / (double) realBytes;
        assertTrue(relative < 1e-3, "timing weights " + klein.weightBytes() + " vs real " + realBytes);
        assertTrue(klein.weightBytes() <= realBytes);
    }

    @Test
    void writtenFilesMatchTheSpec() throws Exception {
        ModelProto model;
        try (InputStream in = Files.newInputStream(files.graphFile())) {
            model = ModelProto.parseFrom(in);
        }
        long nbits = model.getGraph().getNodeList().stream()
                .map(NodeProto::getOpType)
                .filter("MatMulNBits"::equals)
                .count();
        // 9 embedding/modulation/output layers + 8 per double block + 2 per single block.
        assertEquals(9 + 8 + 2, nbits);
        assertEquals(nbits, files.matMulNBitsNodes());
        assertEquals(TimingTransformerSpec.tiny().weightBytes(), files.weightBytes());
        for (int i = 0; i < 2; i++) {
            assertEquals(
                    Files.size(files.shardFiles().get(i)), files.shardBytes().get(i));
        }
        // Alignment adds at most 63 bytes per initializer (3 per layer).
        long slack = files.totalShardBytes() - files.weightBytes();
        assertTrue(slack >= 0 && slack < 3 * 64 * nbits, "slack " + slack);
    }

    @Test
    void anotherBlockSizeReachesEveryMatMulNBitsNodeAndTheWeightSizes() throws Exception {
        TimingTransformerSpec spec16 =
                TimingTransformerSpec.builder().heads(2).contextDim(64).build();
        TimingTransformerSpec spec32 = TimingTransformerSpec.builder()
                .heads(2)
                .contextDim(64)
                .blockSize(32)
                .build();
        TimingTransformerFiles f32 = TimingTransformerWriter.write(spec32, Files.createDirectories(dir.resolve("b32")));
        ModelProto model;
        try (InputStream in = Files.newInputStream(f32.graphFile())) {
            model = ModelProto.parseFrom(in);
        }
        List<Long> blockSizes = model.getGraph().getNodeList().stream()
                .filter(n -> n.getOpType().equals("MatMulNBits"))
                .map(n -> n.getAttributeList().stream()
                        .filter(a -> a.getName().equals("block_size"))
                        .findFirst()
                        .orElseThrow()
                        .getI())
                .toList();
        assertEquals(f32.matMulNBitsNodes(), blockSizes.size());
        assertTrue(blockSizes.stream().allMatch(b -> b == 32), blockSizes.toString());
        assertEquals(spec32.weightBytes(), f32.weightBytes());
        // Same codes, half the scales and zero points.
        assertTrue(spec32.weightBytes() < spec16.weightBytes());
        assertEquals(16, spec16.blockSize());
        assertThrows(
                IllegalArgumentException.class,
                () -> TimingTransformerSpec.builder().blockSize(24).build());
    }

    @Test
    void hasTheRealTransformerInputsAndOutput() throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions();
                OrtSession session = env.createSession(files.graphFile().toString(), opts)) {
            Map<String, NodeInfo> in = session.getInputInfo();
            assertEquals(java.util.Set.of("x", "x_ids", "timesteps", "ctx", "ctx_ids"), in.keySet());
            assertType(in.get("x"), OnnxJavaType.FLOAT16, -1, -1, 128);
            assertType(in.get("x_ids"), OnnxJavaType.FLOAT, -1, -1, 4);
            assertType(in.get("timesteps"), OnnxJavaType.FLOAT16, 1);
            assertType(in.get("ctx"), OnnxJavaType.FLOAT16, -1, -1, 64);
            assertType(in.get("ctx_ids"), OnnxJavaType.FLOAT, -1, -1, 4);
            assertType(session.getOutputInfo().get("pred"), OnnxJavaType.FLOAT16, -1, -1, 128);
        }
    }

    @Test
    void runsAndEveryInputReachesTheOutput() throws Exception {
        Inputs base = Inputs.random(new SplittableRandom(7));
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions();
                OrtSession session = env.createSession(files.graphFile().toString(), opts)) {
            float[] pred = run(env, session, base);
            assertEquals(TOKENS * 128, pred.length);
            double sumSq = 0;
            for (float v : pred) {
                assertTrue(Float.isFinite(v), "non-finite prediction");
                sumSq += v * v;
            }
            assertTrue(sumSq > 0, "all-zero prediction");
            assertArrayEquals(pred, run(env, session, base), "not deterministic");
            Map<String, UnaryOperator<Inputs>> perturbations = new HashMap<>();
            perturbations.put("x", i -> i.with(i.x, 0, 0.5f));
            perturbations.put("ctx", i -> i.with(i.ctx, 3, 0.5f));
            perturbations.put("timesteps", i -> i.with(i.sigma, 0, -0.25f));
            perturbations.put("x_ids", i -> i.with(i.xIds, 5, 1f));
            perturbations.put("ctx_ids", i -> i.with(i.ctxIds, 3, 1f));
            for (Map.Entry<String, UnaryOperator<Inputs>> e : perturbations.entrySet()) {
                float[] changed = run(env, session, e.getValue().apply(base));
                assertFalse(java.util.Arrays.equals(pred, changed), "output ignores input " + e.getKey());
            }
        }
    }

    private static float[] run(OrtEnvironment env, OrtSession session, Inputs in) throws Exception {
        try (OnnxTensor x = half(env, in.x, 1, TOKENS, 128);
                OnnxTensor xIds =
                        OnnxTensor.createTensor(env, java.nio.FloatBuffer.wrap(in.xIds), new long[] {1, TOKENS, 4});
                OnnxTensor sigma = half(env, in.sigma, 1);
                OnnxTensor ctx = half(env, in.ctx, 1, TEXT, 64);
                OnnxTensor ctxIds =
                        OnnxTensor.createTensor(env, java.nio.FloatBuffer.wrap(in.ctxIds), new long[] {1, TEXT, 4});
                OrtSession.Result r =
                        session.run(Map.of("x", x, "x_ids", xIds, "timesteps", sigma, "ctx", ctx, "ctx_ids", ctxIds))) {
            OnnxTensor pred = (OnnxTensor) r.get("pred").orElseThrow();
            assertArrayEquals(new long[] {1, TOKENS, 128}, pred.getInfo().getShape());
            ShortBuffer bits = pred.getShortBuffer();
            float[] out = new float[bits.remaining()];
            for (int i = 0; i < out.length; i++) {
                out[i] = Fp16.toFloat(bits.get(i));
            }
            return out;
        }
    }

    private static OnnxTensor half(OrtEnvironment env, float[] values, long... shape) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(values.length * 2).order(ByteOrder.nativeOrder());
        for (float v : values) {
            buf.putShort(Fp16.fromFloat(v));
        }
        buf.flip();
        return OnnxTensor.createTensor(env, buf.asShortBuffer(), shape, OnnxJavaType.FLOAT16);
    }

    private static void assertType(NodeInfo info, OnnxJavaType type, long... shape) {
        TensorInfo t = (TensorInfo) info.getInfo();
        assertEquals(type, t.type, info.getName());
        assertArrayEquals(shape, t.getShape(), info.getName());
    }

    private static JsonNode seedConfig() {
        return SeedConfig.markShark2();
    }

    /** One set of transformer inputs (copied on change). */
    private static final class Inputs {
        final float[] x;
        final float[] xIds;
        final float[] sigma;
        final float[] ctx;
        final float[] ctxIds;

        private Inputs(float[] x, float[] xIds, float[] sigma, float[] ctx, float[] ctxIds) {
            this.x = x;
            this.xIds = xIds;
            this.sigma = sigma;
            this.ctx = ctx;
            this.ctxIds = ctxIds;
        }

        static Inputs random(SplittableRandom rnd) {
            float[] x = new float[TOKENS * 128];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (rnd.nextDouble() * 2 - 1);
            }
            float[] ctx = new float[TEXT * 64];
            for (int i = 0; i < ctx.length; i++) {
                ctx[i] = (float) (rnd.nextDouble() * 2 - 1);
            }
            // Position ids as the pipeline builds them: image (0, h, w, 0), text (0, 0, 0, i).
            float[] xIds = new float[TOKENS * 4];
            for (int h = 0; h < GRID; h++) {
                for (int w = 0; w < GRID; w++) {
                    xIds[(h * GRID + w) * 4 + 1] = h;
                    xIds[(h * GRID + w) * 4 + 2] = w;
                }
            }
            float[] ctxIds = new float[TEXT * 4];
            for (int i = 0; i < TEXT; i++) {
                ctxIds[i * 4 + 3] = i;
            }
            return new Inputs(x, xIds, new float[] {0.75f}, ctx, ctxIds);
        }

        Inputs with(float[] array, int index, float delta) {
            Inputs copy = new Inputs(x.clone(), xIds.clone(), sigma.clone(), ctx.clone(), ctxIds.clone());
            float[] target = array == x
                    ? copy.x
                    : array == xIds ? copy.xIds : array == sigma ? copy.sigma : array == ctx ? copy.ctx : copy.ctxIds;
            target[index] += delta;
            return copy;
        }
    }
}
