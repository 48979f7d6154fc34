package dev.flux2.onnx.derived;

import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.testkit.PlainGraphBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A graph in the q4 bundle's style, written for the tuning tests: fp16 input x [1, T, K] → MatMulNBits (4-bit codes in
 * blocks of 16, fp16 scales, uint8 zero points, all in the external shard {@value #SHARD}, {@code accuracy_level} 4)
 * → Mul by an fp16 constant → SiLU-free fp16 output y [1, T, N]. Also computes y exactly (in double, from the
 * dequantized weights) for the accuracy comparison.
 */
final class Fp16MatMulGraph {
    static final String SHARD = "weights.data";
    static final int BLOCK = 16;

    final int k;
    final int n;
    final byte[] codes;
    final short[] scales;
    final byte[] zeroPoints;
    final float gain = 0.75f;

    Fp16MatMulGraph(int k, int n, long seed) {
        this.k = k;
        this.n = n;
        SplittableRandom rnd = new SplittableRandom(seed);
        int blocks = k / BLOCK;
        codes = new byte[n * k / 2];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = (byte) rnd.nextInt(256);
        }
        scales = new short[n * blocks];
        for (int i = 0; i < scales.length; i++) {
            scales[i] = Fp16Conversions.floatToFp16((float) (0.02 + 0.03 * rnd.nextDouble()));
        }
        zeroPoints = new byte[n * ((blocks + 1) / 2)];
        for (int i = 0; i < zeroPoints.length; i++) {
            zeroPoints[i] = (byte) rnd.nextInt(256);
        }
    }

    /** Writes {@code graph.onnx} and its shard into {@code dir}; returns the graph file. */
    Path write(Path dir, String graphName) throws IOException {
        Files.createDirectories(dir);
        byte[] scaleBytes = new byte[scales.length * 2];
        ByteBuffer.wrap(scaleBytes)
                .order(ByteOrder.LITTLE_ENDIAN)
                .asShortBuffer()
                .put(scales);
        Path shard = dir.resolve(SHARD);
        try (OutputStream out = Files.newOutputStream(shard)) {
            out.write(codes);
            out.write(scaleBytes);
            out.write(zeroPoints);
        }
        int blocks = k / BLOCK;
        int fp16 = TensorProto.DataType.FLOAT16_VALUE;
        int uint8 = TensorProto.DataType.UINT8_VALUE;
        short gainBits = Fp16Conversions.floatToFp16(gain);
        PlainGraphBuilder g = PlainGraphBuilder.named("fp16_matmul")
                .input("x", fp16, 1, "T", k)
                .output("y", fp16, 1, "T", n)
                .initializer(PlainGraphBuilder.externalTensor(
                        "w.qweight", uint8, SHARD, 0, codes.length, n, blocks, BLOCK / 2))
                .initializer(PlainGraphBuilder.externalTensor(
                        "w.scales", fp16, SHARD, codes.length, scaleBytes.length, (long) n * blocks))
                .initializer(PlainGraphBuilder.externalTensor(
                        "w.qzeros",
                        uint8,
                        SHARD,
                        codes.length + scaleBytes.length,
                        zeroPoints.length,
                        zeroPoints.length))
                // fp16 stored one per int32, as the ONNX spec allows: the widening reads that form too.
                .initializer(TensorProto.newBuilder()
                        .setName("gain")
                        .setDataType(fp16)
                        .addInt32Data(gainBits & 0xFFFF)
                        .build())
                .node(
                        "com.microsoft",
                        "MatMulNBits",
                        List.of("x", "w.qweight", "w.scales", "w.qzeros"),
                        "h",
                        PlainGraphBuilder.intAttr("K", k),
                        PlainGraphBuilder.intAttr("N", n),
                        PlainGraphBuilder.intAttr("bits", 4),
                        PlainGraphBuilder.intAttr("block_size", BLOCK),
                        PlainGraphBuilder.intAttr("accuracy_level", 4))
                .node("Mul", List.of("h", "gain"), "y");
        return PlainGraphBuilder.write(g.model(8, 17), dir.resolve(graphName));
    }

    /** @return y = gain · x · Wᵀ in double, W dequantized exactly */
    double[] exact(float[] x, int tokens) {
        int blocks = k / BLOCK;
        int zpPerColumn = (blocks + 1) / 2;
        double[] y = new double[tokens * n];
        for (int col = 0; col < n; col++) {
            double[] w = new double[k];
            for (int b = 0; b < blocks; b++) {
                double scale = Fp16Conversions.fp16ToFloat(scales[col * blocks + b]);
                int zpByte = zeroPoints[col * zpPerColumn + b / 2] & 0xFF;
                int zp = (b % 2 == 0) ? (zpByte & 0x0F) : (zpByte >>> 4);
                for (int j = 0; j < BLOCK; j++) {
                    int byteIndex = (col * blocks + b) * (BLOCK / 2) + j / 2;
                    int q = (j % 2 == 0) ? (codes[byteIndex] & 0x0F) : ((codes[byteIndex] & 0xFF) >>> 4);
                    w[b * BLOCK + j] = (q - zp) * scale;
                }
            }
            for (int t = 0; t < tokens; t++) {
                double sum = 0;
                for (int i = 0; i < k; i++) {
                    sum += x[t * k + i] * w[i];
                }
                y[t * n + col] = sum * Fp16Conversions.fp16ToFloat(Fp16Conversions.floatToFp16(gain));
            }
        }
        return y;
    }
}
