package dev.flux2.testkit;

/**
 * A 4-bit block-quantized K×N weight matrix in MatMulNBits terms, unpacked: one code (0..15) per weight, one zero
 * point (0..15) and one fp32 scale per (column n, block of 16 rows of K). The dequantized weight is
 * {@code W[k][n] = (code[n][k] − zeroPoint[n][k/16]) · scale[n][k/16]} (com.microsoft.MatMulNBits definition,
 * asymmetric).
 *
 * @param k rows (the reduction dimension; a multiple of the block size)
 * @param n columns (outputs)
 * @param codes n·k codes, column-major: {@code codes[n*k + kk]}
 * @param zeroPoints n·(k/16) zero points: {@code zeroPoints[n*blocks + b]}
 * @param scales n·(k/16) scales: {@code scales[n*blocks + b]}
 */
record Q4Matrix(int k, int n, byte[] codes, byte[] zeroPoints, float[] scales) {

    int blocksPerColumn() {
        return k / SyntheticDims.Q4_BLOCK_SIZE;
    }

    /** @return the dequantized weight W[kk][nn] exactly as MatMulNBits defines it */
    float weight(int kk, int nn) {
        int block = nn * blocksPerColumn() + kk / SyntheticDims.Q4_BLOCK_SIZE;
        return (codes[nn * k + kk] - zeroPoints[block]) * scales[block];
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
     * Draws codes and zero points uniformly from 0..15 and scales uniformly from [maxScale/2, maxScale).
     */
    static Q4Matrix random(DeterministicRandom rnd, int k, int n, float maxScale) {
        if (k % SyntheticDims.Q4_BLOCK_SIZE != 0) {
            throw new IllegalArgumentException("K must be a multiple of the block size, was " + k);
        }
        int blocks = n * (k / SyntheticDims.Q4_BLOCK_SIZE);
        byte[] codes = new byte[n * k];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = (byte) rnd.nextInt(16);
        }
        byte[] zp = new byte[blocks];
        for (int i = 0; i < blocks; i++) {
            zp[i] = (byte) rnd.nextInt(16);
        }
        return new Q4Matrix(k, n, codes, zp, rnd.uniformArray(blocks, maxScale / 2, maxScale));
    }
}
