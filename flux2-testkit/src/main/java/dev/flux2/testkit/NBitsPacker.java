package dev.flux2.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Packs a {@link QuantizedMatrix} into the three MatMulNBits initializers: B uint8 [N, K/block, block·bits/8] with
 * codes packed low bits first (4-bit: element 2j in the low nibble; 8-bit: one per byte), scales fp32 [N·K/block]
 * and zero points uint8 [N·ceil((K/block)·bits/8)] packed the same way, each column starting on a fresh byte.
 */
final class NBitsPacker {
    private NBitsPacker() {}

    static byte[] packCodes(QuantizedMatrix m) {
        return pack(m.codes(), m.quant().bits());
    }

    static byte[] packZeroPoints(QuantizedMatrix m) {
        int blocks = m.blocksPerColumn();
        QuantSpec q = m.quant();
        int perColumn = q.zeroPointBytesPerColumn(blocks);
        byte[] out = new byte[m.n() * perColumn];
        byte[] zp = m.zeroPoints();
        for (int col = 0; col < m.n(); col++) {
            byte[] column = new byte[blocks];
            System.arraycopy(zp, col * blocks, column, 0, blocks);
            byte[] packed = pack(column, q.bits());
            System.arraycopy(packed, 0, out, col * perColumn, packed.length);
        }
        return out;
    }

    private static byte[] pack(byte[] values, int bits) {
        if (bits == 8) {
            return values.clone();
        }
        byte[] out = new byte[(values.length + 1) / 2];
        for (int i = 0; i < values.length; i++) {
            int v = values[i] & 0x0f;
            out[i / 2] = (byte) (out[i / 2] | (i % 2 == 0 ? v : v << 4));
        }
        return out;
    }

    static byte[] scaleBytes(QuantizedMatrix m) {
        ByteBuffer buf = ByteBuffer.allocate(m.scales().length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float s : m.scales()) {
            buf.putFloat(s);
        }
        return buf.array();
    }
}
