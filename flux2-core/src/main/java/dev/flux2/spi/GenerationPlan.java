package dev.flux2.spi;

/**
 * What a generation is about to run, announced to the backend before its first stage ({@link Flux2Backend#prepare})
 * so that the backend can get ready in the background (for example open the transformer while the text encoder
 * runs).
 *
 * @param gridWidth W/16 of the generated image
 * @param gridHeight H/16 of the generated image
 * @param referenceImages whether reference images add tokens to the denoiser's input (their count is known only
 *     once they are encoded)
 * @param fusedCandidate whether the request may run the model's fused multi-step denoiser instead of per-step calls
 */
public record GenerationPlan(int gridWidth, int gridHeight, boolean referenceImages, boolean fusedCandidate) {
    /** Validates. */
    public GenerationPlan {
        if (gridWidth < 1 || gridHeight < 1) {
            throw new IllegalArgumentException("grid must be at least 1x1, got " + gridWidth + "x" + gridHeight);
        }
    }
}
