package dev.flux2.onnx.passes;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One prediction of a miniature timing transformer graph (the testkit's {@code TimingTransformerSpec}: 128 latent
 * channels, 64 context channels) on fixed random inputs, on the CPU provider: the tests of graph rewrites (fused
 * attention, dequantized weights) compare a rewritten graph's prediction with the source graph's.
 */
public final class TimingStepPrediction {
    private TimingStepPrediction() {}

    /**
     * @param graph the transformer graph
     * @param tokens image tokens
     * @param text text tokens
     * @return the prediction {@code pred}, as floats
     * @throws Exception from ONNX Runtime
     */
    public static float[] predict(Path graph, int tokens, int text) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        SplittableRandom rnd = new SplittableRandom(5);
        float[] x = random(rnd, tokens * 128);
        float[] ctx = random(rnd, text * 64);
        float[] xIds = new float[tokens * 4];
        for (int t = 0; t < tokens; t++) {
            xIds[t * 4 + 1] = t / 4;
            xIds[t * 4 + 2] = t % 4;
        }
        float[] ctxIds = new float[text * 4];
        for (int t = 0; t < text; t++) {
            ctxIds[t * 4 + 3] = t;
        }
        try (OrtSession.SessionOptions opts = new OrtSession.SessionOptions();
                OrtSession session = env.createSession(graph.toString(), opts);
                OnnxTensor xt = half(env, x, 1, tokens, 128);
                OnnxTensor xi = OnnxTensor.createTensor(env, FloatBuffer.wrap(xIds), new long[] {1, tokens, 4});
                OnnxTensor sigma = half(env, new float[] {0.6f}, 1);
                OnnxTensor c = half(env, ctx, 1, text, 64);
                OnnxTensor ci = OnnxTensor.createTensor(env, FloatBuffer.wrap(ctxIds), new long[] {1, text, 4});
                OrtSession.Result r =
                        session.run(Map.of("x", xt, "x_ids", xi, "timesteps", sigma, "ctx", c, "ctx_ids", ci))) {
            ByteBuffer out =
                    ((OnnxTensor) r.get("pred").orElseThrow()).getByteBuffer().order(ByteOrder.nativeOrder());
            float[] y = new float[out.remaining() / 2];
            for (int i = 0; i < y.length; i++) {
                y[i] = Fp16Conversions.fp16ToFloat(out.getShort());
            }
            return y;
        }
    }

    private static float[] random(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (2 * rnd.nextDouble() - 1);
        }
        return v;
    }

    private static OnnxTensor half(OrtEnvironment env, float[] values, long... shape) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(values.length * 2).order(ByteOrder.nativeOrder());
        for (float v : values) {
            buf.putShort(Fp16Conversions.floatToFp16(v));
        }
        buf.flip();
        return OnnxTensor.createTensor(env, buf.asShortBuffer(), shape, OnnxJavaType.FLOAT16);
    }
}
