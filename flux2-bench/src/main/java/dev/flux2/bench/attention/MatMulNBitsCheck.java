package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.onnx.passes.WeightDequantization;
import dev.flux2.testkit.PlainGraphBuilder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One weight product of the klein transformer ([1, tokens, K] fp16 times a K×N weight) on one provider, as
 * {@code MatMulNBits} with 4-bit blocks of several sizes and accuracy levels, and as a plain fp16 {@code MatMul}
 * with the weight dequantized ({@code fp16-matmul}), and as the in-graph dequantization {@link WeightDequantization}
 * writes, dequantized in every run ({@code dq16-matmul}) or constant-folded at session creation
 * ({@code dq16-folded}): which form of the transformer's biggest cost on WebGPU is fastest. The output is
 * reduced to one value per token inside the graph so that copying it back does not dominate.
 *
 * <pre>java -cp flux2-bench/target/benchmarks.jar dev.flux2.bench.attention.MatMulNBitsCheck \
 *     [--provider cpu|webgpu] [--tokens 4608] [--k 3072] [--n 27648] [--runs 5]</pre>
 */
public final class MatMulNBitsCheck {
    private MatMulNBitsCheck() {}

    /**
     * @param args options, see the class comment
     * @throws Exception when a run fails
     */
    public static void main(String[] args) throws Exception {
        String provider = "cpu";
        int tokens = 4608;
        int k = 3072;
        int n = 27648;
        int runs = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--provider" -> provider = args[++i];
                case "--tokens" -> tokens = Integer.parseInt(args[++i]);
                case "--k" -> k = Integer.parseInt(args[++i]);
                case "--n" -> n = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        SplittableRandom rnd = new SplittableRandom(9);
        ByteBuffer x = ByteBuffer.allocateDirect(tokens * k * 2).order(ByteOrder.nativeOrder());
        for (int i = 0; i < tokens * k; i++) {
            x.putShort(Fp16Conversions.floatToFp16((float) (2 * rnd.nextDouble() - 1)));
        }
        x.rewind();
        double flops = 2.0 * tokens * k * n;
        System.out.println("form\tmedian_ms\tTFLOP/s");
        try (OnnxTensor input = OnnxTensor.createTensor(env, x, new long[] {1, tokens, k}, OnnxJavaType.FLOAT16)) {
            List<String> forms = List.of(
                    "nbits16-acc4",
                    "nbits16-acc0",
                    "nbits32-acc4",
                    "nbits32-acc0",
                    "nbits64-acc4",
                    "nbits128-acc4",
                    "fp16-matmul",
                    "dq16-matmul",
                    "dq16-folded",
                    "dq16-fp32");
            for (String form : forms) {
                ModelProto model = form.equals("fp16-matmul")
                        ? dense(k, n, tokens, rnd)
                        : form.startsWith("dq16")
                                ? WeightDequantization.dequantize(nbits(k, n, tokens, 16, 4, rnd), Set.of(16))
                                        .model()
                                : nbits(
                                        k,
                                        n,
                                        tokens,
                                        Integer.parseInt(form.substring(5, form.indexOf('-'))),
                                        form.endsWith("acc4") ? 4 : 0,
                                        rnd);
                try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
                    if (provider.equals("webgpu")) {
                        o.addWebGPU(Map.of());
                    }
                    if (form.equals("dq16-folded")) {
                        // ONNX Runtime then constant-folds DequantizeLinear (and the Transpose) at session creation
                        o.addConfigEntry("session.disable_quant_qdq", "1");
                    }
                    try (OrtSession s = env.createSession(model.toByteArray(), o)) {
                        s.run(Map.of("x", input)).close();
                        List<Double> ms = new ArrayList<>();
                        for (int r = 0; r < runs; r++) {
                            long w = System.nanoTime();
                            s.run(Map.of("x", input)).close();
                            ms.add((System.nanoTime() - w) / 1e6);
                        }
                        double med = ms.stream()
                                .mapToDouble(Double::doubleValue)
                                .sorted()
                                .toArray()[runs / 2];
                        System.out.printf(Locale.ROOT, "%s\t%.1f\t%.1f%n", form, med, flops / (med * 1e-3) / 1e12);
                    }
                } catch (Exception e) {
                    System.out.println(form + "\tfailed: " + e.getMessage());
                }
            }
        }
    }

    private static ModelProto nbits(int k, int n, int tokens, int block, int accuracy, SplittableRandom rnd) {
        int blocks = k / block;
        byte[] codes = new byte[n * blocks * block / 2];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = (byte) rnd.nextInt();
        }
        ByteBuffer scales = ByteBuffer.allocate(n * blocks * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n * blocks; i++) {
            scales.putShort(Fp16Conversions.floatToFp16((float) (0.01 * rnd.nextDouble())));
        }
        PlainGraphBuilder g = graph(tokens, k)
                .initializer(
                        PlainGraphBuilder.rawTensor("w", TensorProto.DataType.UINT8_VALUE, codes, n, blocks, block / 2))
                .initializer(PlainGraphBuilder.rawTensor(
                        "s", TensorProto.DataType.FLOAT16_VALUE, scales.array(), (long) n * blocks))
                .node(
                        "com.microsoft",
                        "MatMulNBits",
                        List.of("x", "w", "s"),
                        "y",
                        PlainGraphBuilder.intAttr("K", k),
                        PlainGraphBuilder.intAttr("N", n),
                        PlainGraphBuilder.intAttr("bits", 4),
                        PlainGraphBuilder.intAttr("block_size", block),
                        PlainGraphBuilder.intAttr("accuracy_level", accuracy));
        return finish(g);
    }

    private static ModelProto dense(int k, int n, int tokens, SplittableRandom rnd) {
        ByteBuffer w = ByteBuffer.allocate(k * n * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < k * n; i++) {
            w.putShort(Fp16Conversions.floatToFp16((float) (0.02 * (rnd.nextDouble() - 0.5))));
        }
        PlainGraphBuilder g = graph(tokens, k)
                .initializer(PlainGraphBuilder.rawTensor("w", TensorProto.DataType.FLOAT16_VALUE, w.array(), k, n))
                .node("MatMul", List.of("x", "w"), "y");
        return finish(g);
    }

    private static PlainGraphBuilder graph(int tokens, int k) {
        return PlainGraphBuilder.named("weight_product").input("x", TensorProto.DataType.FLOAT16_VALUE, 1, tokens, k);
    }

    private static ModelProto finish(PlainGraphBuilder g) {
        g.initializer(TensorProto.newBuilder()
                        .setName("axes")
                        .setDataType(TensorProto.DataType.INT64_VALUE)
                        .addDims(1)
                        .addInt64Data(-1)
                        .build())
                .node("ReduceMean", List.of("y", "axes"), "out")
                .outputOfAnyShape("out", TensorProto.DataType.FLOAT16_VALUE);
        return g.model(8, 18);
    }
}
