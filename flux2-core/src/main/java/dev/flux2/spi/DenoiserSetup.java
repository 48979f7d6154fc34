package dev.flux2.spi;

import java.util.Objects;

/**
 * The token layout of one generation: N noise tokens on an H/16 × W/16 grid, followed by M clean reference tokens.
 *
 * @param gridHeight H/16
 * @param gridWidth W/16
 * @param positionIds (N+M)·4 ids, noise tokens first: (0, r, c, 0) then references (10(i+1), r, c, 0)
 * @param referenceTokens M·128 packed, normalised reference latents (empty without references)
 * @param textIds L·4 text ids (0, 0, 0, l)
 */
public record DenoiserSetup(
        int gridHeight, int gridWidth, float[] positionIds, float[] referenceTokens, float[] textIds) {

    /** Validates the lengths. */
    public DenoiserSetup {
        Objects.requireNonNull(positionIds, "positionIds");
        Objects.requireNonNull(referenceTokens, "referenceTokens");
        Objects.requireNonNull(textIds, "textIds");
        int n = gridHeight * gridWidth;
        if (gridHeight < 1
                || gridWidth < 1
                || referenceTokens.length % 128 != 0
                || positionIds.length != 4 * (n + referenceTokens.length / 128)
                || textIds.length % 4 != 0) {
            throw new IllegalArgumentException("inconsistent denoiser setup: grid " + gridHeight + "x" + gridWidth
                    + ", " + positionIds.length + " id values, " + referenceTokens.length
                    + " reference values, " + textIds.length + " text id values");
        }
    }

    /** @return N, the number of noise (output) tokens */
    public int noiseTokens() {
        return gridHeight * gridWidth;
    }

    /** @return M, the number of reference tokens */
    public int referenceTokenCount() {
        return referenceTokens.length / 128;
    }
}
