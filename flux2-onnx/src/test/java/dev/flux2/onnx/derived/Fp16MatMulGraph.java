package dev.flux2.onnx.derived;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import ai.onnxruntime.platform.Fp16Conversions;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
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
        GraphProto.Builder g = GraphProto.newBuilder().setName("fp16_matmul");
        g.addInput(value("x", TensorProto.DataType.FLOAT16_VALUE, "T", k));
        g.addOutput(value("y", TensorProto.DataType.FLOAT16_VALUE, "T", n));
        g.addInitializer(
                external("w.qweight", TensorProto.DataType.UINT8_VALUE, 0, codes.length, n, blocks, BLOCK / 2));
        g.addInitializer(external(
                "w.scales", TensorProto.DataType.FLOAT16_VALUE, codes.length, scaleBytes.length, (long) n * blocks));
        g.addInitializer(external(
                "w.qzeros",
                TensorProto.DataType.UINT8_VALUE,
                codes.length + scaleBytes.length,
                zeroPoints.length,
                zeroPoints.length));
        short gainBits = Fp16Conversions.floatToFp16(gain);
        g.addInitializer(TensorProto.newBuilder()
                .setName("gain")
                .setDataType(TensorProto.DataType.FLOAT16_VALUE)
                .addInt32Data(gainBits & 0xFFFF));
        g.addNode(NodeProto.newBuilder()
                .setOpType("MatMulNBits")
                .setDomain("com.microsoft")
                .addInput("x")
                .addInput("w.qweight")
                .addInput("w.scales")
                .addInput("w.qzeros")
                .addOutput("h")
                .addAttribute(intAttr("K", k))
                .addAttribute(intAttr("N", n))
                .addAttribute(intAttr("bits", 4))
                .addAttribute(intAttr("block_size", BLOCK))
                .addAttribute(intAttr("accuracy_level", 4)));
        g.addNode(NodeProto.newBuilder()
                .setOpType("Mul")
                .addInput("h")
                .addInput("gain")
                .addOutput("y"));
        ModelProto model = ModelProto.newBuilder()
                .setIrVersion(8)
                .setProducerName("flux2-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .addOpsetImport(OperatorSetIdProto.newBuilder()
                        .setDomain("com.microsoft")
                        .setVersion(1))
                .setGraph(g)
                .build();
        Path file = dir.resolve(graphName);
        try (OutputStream out = Files.newOutputStream(file)) {
            model.writeTo(out);
        }
        return file;
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

    private static AttributeProto intAttr(String name, long value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.INT)
                .setI(value)
                .build();
    }

    private static ValueInfoProto value(String name, int type, String symbol, long last) {
        TensorShapeProto shape = TensorShapeProto.newBuilder()
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(1))
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam(symbol))
                .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(last))
                .build();
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(
                                TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape)))
                .build();
    }

    private static TensorProto external(String name, int type, long offset, long length, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(type);
        for (long d : dims) {
            t.addDims(d);
        }
        return t.setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .addExternalData(
                        StringStringEntryProto.newBuilder().setKey("location").setValue(SHARD))
                .addExternalData(
                        StringStringEntryProto.newBuilder().setKey("offset").setValue(Long.toString(offset)))
                .addExternalData(
                        StringStringEntryProto.newBuilder().setKey("length").setValue(Long.toString(length)))
                .build();
    }
}
