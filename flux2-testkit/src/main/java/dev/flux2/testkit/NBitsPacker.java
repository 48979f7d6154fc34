package dev.flux2.testkit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Packs a {@link Q4Matrix} into the three MatMulNBits initializers: B uint8 [N, K/16, 8] with two codes per
 * byte (element 2j in the low nibble), scales fp32 [N·K/16] and zero points uint8 [N·ceil((K/16)/2)] packed the
 * same way, low nibble first, each column starting on a fresh byte.
 */
final class Q4Packer {
    private Q4Packer() {}

    static byte[] packCodes(Q4Matrix m) {
        byte[] out = new byte[m.n() * m.k() / 2];
        byte[] codes = m.codes();
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) ((codes[2 * i] & 0x0f) | ((codes[2 * i + 1] & 0x0f) << 4));
        }
        return out;
    }

    static int zeroPointBytesPerColumn(int blocksPerColumn) {
        return (blocksPerColumn + 1) / 2;
    }

    static byte[] packZeroPoints(Q4Matrix m) {
        int blocks = m.blocksPerColumn();
        int perColumn = zeroPointBytesPerColumn(blocks);
        byte[] out = new byte[m.n() * perColumn];
        byte[] zp = m.zeroPoints();
        for (int col = 0; col < m.n(); col++) {
            for (int b = 0; b < blocks; b++) {
                int value = zp[col * blocks + b] & 0x0f;
                int index = col * perColumn + b / 2;
                out[index] = (byte) (out[index] | (b % 2 == 0 ? value : value << 4));
            }
        }
        return out;
    }

    static byte[] scaleBytes(Q4Matrix m) {
        ByteBuffer buf = ByteBuffer.allocate(m.scales().length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float s : m.scales()) {
            buf.putFloat(s);
        }
        return buf.array();
    }
}
