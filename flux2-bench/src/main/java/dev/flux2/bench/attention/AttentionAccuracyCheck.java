package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One attention in the seed's form (24 heads × 128, fp16 in and out), run as the graph and as each MHA fusion (fp32, fp16) on
 * one provider: time per run (median) and the error of each against a double-precision computation of sampled query
 * rows. Answers which of two runs is off when they disagree (the graph's fp16 {@code MatMul} of the probabilities
 * with v, or the fused kernel).
 *
 * <pre>java -cp flux2-bench/target/benchmarks.jar dev.flux2.bench.attention.AttentionAccuracyCheck \
 *     [--tokens 1536,4608] [--provider cpu|webgpu] [--runs 5] [--rows 32]</pre>
 */
public final class AttentionAccuracyCheck {
    private static final int HEADS = 24;
    private static final int H = SeedAttentionGraph.HEAD_DIM;

    private AttentionAccuracyCheck() {}

    /**
     * @param args options, see the class comment
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        String tokenList = "1536,4608";
        String provider = "cpu";
        int runs = 5;
        int rows = 32;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--tokens" -> tokenList = args[++i];
                case "--provider" -> provider = args[++i];
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        System.out.println("tokens\tform\tmedian_ms\trel_rms_vs_exact\tmax_abs_vs_exact");
        for (String t : tokenList.split(",")) {
            int tokens = Integer.parseInt(t.trim());
            ModelProto seed = SeedAttentionGraph.build(HEADS, tokens);
            Map<String, ModelProto> forms = new java.util.LinkedHashMap<>();
            forms.put("graph", seed);
            for (MhaPrecision precision : MhaPrecision.values()) {
                MhaFusion.Fused f = MhaFusion.fuse(seed, precision);
                if (f.result().fused() != 1) {
                    throw new IllegalStateException(
                            precision + ": " + f.result().describe());
                }
                forms.put("fused-" + precision.name().toLowerCase(Locale.ROOT), f.model());
            }
            SplittableRandom rnd = new SplittableRandom(5);
            Map<String, float[]> values = new HashMap<>();
            Map<String, OnnxTensor> inputs = new HashMap<>();
            long[] shape = {1, HEADS, tokens, H};
            for (String name : new String[] {"q", "k", "v"}) {
                int n = HEADS * tokens * H;
                float[] x = new float[n];
                ByteBuffer b = ByteBuffer.allocateDirect(n * 2).order(ByteOrder.nativeOrder());
                // q and k as after RMSNorm with weights of a few units; v in [-1, 1].
                double range = name.equals("v") ? 1 : 2.5;
                for (int i = 0; i < n; i++) {
                    short h = Fp16Conversions.floatToFp16((float) (range * (2 * rnd.nextDouble() - 1)));
                    x[i] = Fp16Conversions.fp16ToFloat(h);
                    b.putShort(h);
                }
                b.rewind();
                values.put(name, x);
                inputs.put(name, OnnxTensor.createTensor(env, b, shape, OnnxJavaType.FLOAT16));
            }
            int[] sampled = new int[rows];
            for (int i = 0; i < rows; i++) {
                sampled[i] = (int) ((long) i * tokens / rows);
            }
            double[][][] exact = exact(values, tokens, sampled);
            try {
                for (var e : forms.entrySet()) {
                    try (OrtSession.SessionOptions o = options(provider);
                            OrtSession s = env.createSession(e.getValue().toByteArray(), o)) {
                        float[] out = run(s, inputs);
                        List<Double> ms = new ArrayList<>();
                        for (int r = 0; r < runs; r++) {
                            long w = System.nanoTime();
                            try (OrtSession.Result x = s.run(inputs)) {
                                ms.add((System.nanoTime() - w) / 1e6);
                            }
                        }
                        double num = 0;
                        double den = 0;
                        double max = 0;
                        for (int h = 0; h < HEADS; h++) {
                            for (int i = 0; i < rows; i++) {
                                for (int d = 0; d < H; d++) {
                                    double want = exact[h][i][d];
                                    double got = out[(h * tokens + sampled[i]) * H + d];
                                    num += (got - want) * (got - want);
                                    den += want * want;
                                    max = Math.max(max, Math.abs(got - want));
                                }
                            }
                        }
                        double[] sorted = ms.stream()
                                .mapToDouble(Double::doubleValue)
                                .sorted()
                                .toArray();
                        System.out.printf(
                                Locale.ROOT,
                                "%d\t%s\t%.1f\t%.3g\t%.3g%n",
                                tokens,
                                e.getKey(),
                                sorted[sorted.length / 2],
                                Math.sqrt(num / den),
                                max);
                    }
                }
            } finally {
                inputs.values().forEach(OnnxTensor::close);
            }
        }
    }

    private static OrtSession.SessionOptions options(String provider) throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        switch (provider) {
            case "cpu" -> {
                // CPU only.
            }
            case "webgpu" -> o.addWebGPU(Map.of());
            default -> throw new IllegalArgumentException("provider must be cpu or webgpu: " + provider);
        }
        return o;
    }

    private static float[] run(OrtSession s, Map<String, OnnxTensor> inputs) throws OrtException {
        try (OrtSession.Result r = s.run(inputs)) {
            ByteBuffer out = ((OnnxTensor) r.get(0)).getByteBuffer().order(ByteOrder.nativeOrder());
            float[] y = new float[out.remaining() / 2];
            for (int i = 0; i < y.length; i++) {
                y[i] = Fp16Conversions.fp16ToFloat(out.getShort());
            }
            return y;
        }
    }

    /** softmax(q·kᵀ/√H)·v in double for the sampled rows of every head: [head][row][d]. */
    private static double[][][] exact(Map<String, float[]> x, int tokens, int[] rows) {
        float[] q = x.get("q");
        float[] k = x.get("k");
        float[] v = x.get("v");
        double scale = 1 / Math.sqrt(H);
        double[][][] out = new double[HEADS][rows.length][H];
        java.util.stream.IntStream.range(0, HEADS).parallel().forEach(h -> {
            double[] s = new double[tokens];
            for (int r = 0; r < rows.length; r++) {
                int qi = (h * tokens + rows[r]) * H;
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < tokens; j++) {
                    int kj = (h * tokens + j) * H;
                    double dot = 0;
                    for (int d = 0; d < H; d++) {
                        dot += (double) q[qi + d] * k[kj + d];
                    }
                    s[j] = dot * scale;
                    max = Math.max(max, s[j]);
                }
                double sum = 0;
                for (int j = 0; j < tokens; j++) {
                    s[j] = Math.exp(s[j] - max);
                    sum += s[j];
                }
                double[] o = out[h][r];
                Arrays.fill(o, 0);
                for (int j = 0; j < tokens; j++) {
                    double p = s[j] / sum;
                    int vj = (h * tokens + j) * H;
                    for (int d = 0; d < H; d++) {
                        o[d] += p * v[vj + d];
                    }
                }
            }
        });
        return out;
    }
}
