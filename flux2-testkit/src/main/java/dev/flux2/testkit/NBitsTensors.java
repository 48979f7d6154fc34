package dev.flux2.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The external-data locations of one MatMulNBits weight (packed codes in the first shard, scales and zero points in
 * the second, or all in the only one), and the node that uses them.
 *
 * @param name initializer name prefix
 * @param quant bits and block size
 * @param k reduction size
 * @param n output columns
 * @param codes packed codes, uint8 [N, K/block, block·bits/8]
 * @param scales fp32 [N·K/block]
 * @param zeroPoints packed uint8 [N·ceil((K/block)·bits/8)]
 */
record NBitsTensors(
        String name, QuantSpec quant, int k, int n, ExternalRef codes, ExternalRef scales, ExternalRef zeroPoints) {
    /** CPU MatMulNBits with fp32 activations: level 0 keeps fp32 compute (level 4 would quantize A to int8). */
    static final int ACCURACY_LEVEL = 0;
    /** The padding scale 2^-7; any value works because every padding code equals its zero point. */
    private static final byte[] PADDING_SCALE = float32Bytes(0x1p-7f);

    private static final byte[] PADDING_NIBBLES = {(byte) 0x88};

    static NBitsTensors write(ExternalDataWriter writer, String name, QuantizedMatrix m) {
        int second = Math.min(1, writer.shardCount() - 1);
        ExternalRef codes = writer.append(0, NBitsPacker.packCodes(m));
        ExternalRef scales = writer.append(second, NBitsPacker.scaleBytes(m));
        ExternalRef zp = writer.append(second, NBitsPacker.packZeroPoints(m));
        return new NBitsTensors(name, m.quant(), m.k(), m.n(), codes, scales, zp);
    }

    /**
     * Streams the padding weight: K = {@link SyntheticDims#PADDING_K}, 4 bits, block 16, every code 8 and every
     * zero point 8, so each dequantized weight is exactly 0 while ONNX Runtime still has to load, pre-pack and read
     * all of it.
     */
    static NBitsTensors writePadding(ExternalDataWriter writer, long columns) {
        QuantSpec q = QuantSpec.Q4_BLOCK16;
        int k = SyntheticDims.PADDING_K;
        int blocks = k / q.blockSize();
        if (columns > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many padding columns: " + columns);
        }
        int second = Math.min(1, writer.shardCount() - 1);
        ExternalRef codes = writer.appendPattern(0, columns * (k / 2), PADDING_NIBBLES);
        ExternalRef scales = writer.appendPattern(second, columns * blocks * 4L, PADDING_SCALE);
        ExternalRef zp = writer.appendPattern(second, columns * q.zeroPointBytesPerColumn(blocks), PADDING_NIBBLES);
        return new NBitsTensors("/synthetic/padding", q, k, (int) columns, codes, scales, zp);
    }

    /** Adds the three initializers (once) and a MatMulNBits node over {@code input}; returns its output. */
    String apply(GraphBuilder b, String input) {
        int blocks = k / quant.blockSize();
        String codesName = b.external(name + ".qweight", TensorElementType.UINT8, codes, n, blocks, quant.blobBytes());
        String scalesName = b.external(name + ".scales", TensorElementType.FLOAT, scales, (long) n * blocks);
        String zpName = b.external(
                name + ".qzeros",
                TensorElementType.UINT8,
                zeroPoints,
                (long) n * quant.zeroPointBytesPerColumn(blocks));
        return b.msOp(
                "MatMulNBits",
                List.of(input, codesName, scalesName, zpName),
                GraphBuilder.attrInt("K", k),
                GraphBuilder.attrInt("N", n),
                GraphBuilder.attrInt("bits", quant.bits()),
                GraphBuilder.attrInt("block_size", quant.blockSize()),
                GraphBuilder.attrInt("accuracy_level", ACCURACY_LEVEL));
    }

    private static byte[] float32Bytes(float v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array();
    }
}
