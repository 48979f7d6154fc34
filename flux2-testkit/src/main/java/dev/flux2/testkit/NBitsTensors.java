package dev.flux2.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The external-data locations of one MatMulNBits weight (packed codes in shard 1, scales and zero points in
 * shard 2), and the node that uses them.
 *
 * @param name initializer name prefix
 * @param k reduction size
 * @param n output columns
 * @param codes packed 4-bit codes, uint8 [N, K/16, 8]
 * @param scales fp32 [N·K/16]
 * @param zeroPoints packed uint8 [N·ceil(K/32)]
 */
record Q4Tensors(String name, int k, int n, ExternalRef codes, ExternalRef scales, ExternalRef zeroPoints) {
    /** CPU MatMulNBits with fp32 activations: level 0 keeps fp32 compute (level 4 would quantize A to int8). */
    static final int ACCURACY_LEVEL = 0;
    /** The padding scale 2^-7; any value works because every padding code equals its zero point. */
    private static final byte[] PADDING_SCALE = float32Bytes(0x1p-7f);

    private static final byte[] PADDING_NIBBLES = {(byte) 0x88};

    static Q4Tensors write(ExternalDataWriter writer, String name, Q4Matrix m) {
        ExternalRef codes = writer.append(0, Q4Packer.packCodes(m));
        ExternalRef scales = writer.append(1, Q4Packer.scaleBytes(m));
        ExternalRef zp = writer.append(1, Q4Packer.packZeroPoints(m));
        return new Q4Tensors(name, m.k(), m.n(), codes, scales, zp);
    }

    /**
     * Streams the padding weight: K = {@link SyntheticDims#PADDING_K}, every code 8 and every zero point 8, so
     * each dequantized weight is exactly 0 while ONNX Runtime still has to load, pre-pack and read all of it.
     */
    static Q4Tensors writePadding(ExternalDataWriter writer, long columns) {
        int k = SyntheticDims.PADDING_K;
        int blocks = k / SyntheticDims.Q4_BLOCK_SIZE;
        if (columns > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many padding columns: " + columns);
        }
        ExternalRef codes = writer.appendPattern(0, columns * (k / 2), PADDING_NIBBLES);
        ExternalRef scales = writer.appendPattern(1, columns * blocks * 4L, PADDING_SCALE);
        ExternalRef zp = writer.appendPattern(1, columns * Q4Packer.zeroPointBytesPerColumn(blocks), PADDING_NIBBLES);
        return new Q4Tensors("/synthetic/padding", k, (int) columns, codes, scales, zp);
    }

    /** Adds the three initializers (once) and a MatMulNBits node over {@code input}; returns its output. */
    String apply(GraphBuilder b, String input) {
        int blocks = k / SyntheticDims.Q4_BLOCK_SIZE;
        String codesName = b.external(
                name + ".qweight", TensorElementType.UINT8, codes, n, blocks, SyntheticDims.Q4_BLOCK_SIZE / 2);
        String scalesName = b.external(name + ".scales", TensorElementType.FLOAT, scales, (long) n * blocks);
        String zpName = b.external(
                name + ".qzeros",
                TensorElementType.UINT8,
                zeroPoints,
                (long) n * Q4Packer.zeroPointBytesPerColumn(blocks));
        return b.msOp(
                "MatMulNBits",
                List.of(input, codesName, scalesName, zpName),
                GraphBuilder.attrInt("K", k),
                GraphBuilder.attrInt("N", n),
                GraphBuilder.attrInt("bits", 4),
                GraphBuilder.attrInt("block_size", SyntheticDims.Q4_BLOCK_SIZE),
                GraphBuilder.attrInt("accuracy_level", ACCURACY_LEVEL));
    }

    private static byte[] float32Bytes(float v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array();
    }
}
