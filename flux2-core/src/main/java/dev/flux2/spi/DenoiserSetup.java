package dev.flux2.spi;

import java.util.Objects;

/**
 * The token layout of one generation: N noise tokens on a W/16 × H/16 grid, followed by M clean reference tokens.
 *
 * @param gridWidth W/16
 * @param gridHeight H/16
 * @param positionIds (N+M)·4 ids, noise tokens first: (0, r, c, 0) then references (10(i+1), r, c, 0)
 * @param referenceTokens M·{@value LatentGrid#CHANNELS} packed, normalised reference latents (empty without
 *     references)
 * @param textIds L·4 text ids (0, 0, 0, l)
 */
public record DenoiserSetup(
        int gridWidth, int gridHeight, float[] positionIds, float[] referenceTokens, float[] textIds) {

    /** Validates the lengths. */
    public DenoiserSetup {
        Objects.requireNonNull(positionIds, "positionIds");
        Objects.requireNonNull(referenceTokens, "referenceTokens");
        Objects.requireNonNull(textIds, "textIds");
        int n = gridWidth * gridHeight;
        if (gridWidth < 1
                || gridHeight < 1
                || referenceTokens.length % LatentGrid.CHANNELS != 0
                || positionIds.length != 4 * (n + referenceTokens.length / LatentGrid.CHANNELS)
                || textIds.length % 4 != 0) {
            throw new IllegalArgumentException("inconsistent denoiser setup: grid " + gridWidth + "x" + gridHeight
                    + ", " + positionIds.length + " id values, " + referenceTokens.length
                    + " reference values, " + textIds.length + " text id values");
        }
    }

    /** @return N, the number of noise (output) tokens */
    public int noiseTokens() {
        return gridWidth * gridHeight;
    }

    /** @return M, the number of reference tokens */
    public int referenceTokenCount() {
        return referenceTokens.length / LatentGrid.CHANNELS;
    }
}
