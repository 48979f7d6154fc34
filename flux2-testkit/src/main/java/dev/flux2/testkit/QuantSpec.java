package dev.flux2.testkit;

/**
 * How a MatMulNBits weight is quantized: bits per weight and the block size along K (com.microsoft.MatMulNBits,
 * asymmetric, with zero points).
 *
 * @param bits 4 or 8
 * @param blockSize a power of two ≥ 16
 */
public record QuantSpec(int bits, int blockSize) {
    /** The MarkShark2 q4 bundle's weights: 4 bits, block 16. */
    public static final QuantSpec Q4_BLOCK16 = new QuantSpec(4, 16);
    /** hlhc's text encoder: 4 bits, block 128. */
    public static final QuantSpec Q4_BLOCK128 = new QuantSpec(4, 128);
    /** hlhc's transformer: 8 bits, block 128. */
    public static final QuantSpec Q8_BLOCK128 = new QuantSpec(8, 128);

    /** Validates. */
    public QuantSpec {
        if (bits != 4 && bits != 8) {
            throw new IllegalArgumentException("MatMulNBits bits must be 4 or 8 here, was " + bits);
        }
        if (blockSize < 16 || Integer.bitCount(blockSize) != 1) {
            throw new IllegalArgumentException("block size must be a power of two >= 16, was " + blockSize);
        }
    }

    /** @return the largest code, 2^bits − 1 */
    int maxCode() {
        return (1 << bits) - 1;
    }

    /** @return bytes of one block's packed codes: blockSize·bits/8 */
    int blobBytes() {
        return blockSize * bits / 8;
    }

    /**
     * @param blocks blocks per column
     * @return bytes of one column's packed zero points: ceil(blocks·bits/8)
     */
    int zeroPointBytesPerColumn(int blocks) {
        return (blocks * bits + 7) / 8;
    }

    @Override
    public String toString() {
        return bits + "-bit block " + blockSize;
    }
}
