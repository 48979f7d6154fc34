package dev.flux2.testkit;

/**
 * A block-quantized K×N weight matrix in MatMulNBits terms, unpacked: one code (0..2^bits−1) per weight, one zero
 * point (0..2^bits−1) and one fp32 scale per (column n, block of {@code quant.blockSize()} rows of K). The dequantized
 * weight is {@code W[k][n] = (code[n][k] − zeroPoint[n][k/block]) · scale[n][k/block]} (com.microsoft.MatMulNBits
 * definition, asymmetric). The reference dequantizes with {@link #weight}, never by reading a graph's output.
 *
 * @param quant bits and block size
 * @param k rows (the reduction dimension; a multiple of the block size)
 * @param n columns (outputs)
 * @param codes n·k codes, column-major: {@code codes[n*k + kk]} (unsigned bytes)
 * @param zeroPoints n·(k/block) zero points: {@code zeroPoints[n*blocks + b]} (unsigned bytes)
 * @param scales n·(k/block) scales: {@code scales[n*blocks + b]}
 */
record QuantizedMatrix(QuantSpec quant, int k, int n, byte[] codes, byte[] zeroPoints, float[] scales) {

    int blocksPerColumn() {
        return k / quant.blockSize();
    }

    /** @return the dequantized weight W[kk][nn] exactly as MatMulNBits defines it */
    float weight(int kk, int nn) {
        int block = nn * blocksPerColumn() + kk / quant.blockSize();
        return ((codes[nn * k + kk] & 0xFF) - (zeroPoints[block] & 0xFF)) * scales[block];
    }

    /** @return W as a dense row-major k×n float matrix */
    float[] dequantized() {
        float[] w = new float[k * n];
        for (int kk = 0; kk < k; kk++) {
            for (int nn = 0; nn < n; nn++) {
                w[kk * n + nn] = weight(kk, nn);
            }
        }
        return w;
    }

    /**
     * Draws codes and zero points uniformly from 0..2^bits−1 and scales uniformly from [s/2, s) with
     * s = maxScale·15/(2^bits − 1), so weights have the same range whatever the bits.
     *
     * @param rnd the random source
     * @param quant bits and block size
     * @param k rows
     * @param n columns
     * @param maxScale the largest scale of a 4-bit matrix
     * @return the matrix
     */
    static QuantizedMatrix random(DeterministicRandom rnd, QuantSpec quant, int k, int n, float maxScale) {
        if (k % quant.blockSize() != 0) {
            throw new IllegalArgumentException(
                    "K must be a multiple of the block size " + quant.blockSize() + ", was " + k);
        }
        int levels = quant.maxCode() + 1;
        int blocks = n * (k / quant.blockSize());
        byte[] codes = new byte[n * k];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = (byte) rnd.nextInt(levels);
        }
        byte[] zp = new byte[blocks];
        for (int i = 0; i < blocks; i++) {
            zp[i] = (byte) rnd.nextInt(levels);
        }
        float s = maxScale * 15f / quant.maxCode();
        return new QuantizedMatrix(quant, k, n, codes, zp, rnd.uniformArray(blocks, s / 2, s));
    }
}
