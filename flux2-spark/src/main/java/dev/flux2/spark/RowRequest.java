package dev.flux2.spark;

import java.util.List;

/**
 * One request row, parsed: every optional value is null when the row leaves it unset.
 *
 * @param id the checked id
 * @param prompt the prompt
 * @param seed the seed given in the row, or null
 * @param width width in pixels, or null
 * @param height height in pixels, or null
 * @param steps denoising steps, or null
 * @param guidance guidance scale, or null
 * @param initImage img2img source path or URI, or null
 * @param strength img2img strength, or null
 * @param referenceImages reference image paths or URIs, possibly empty
 */
record RowRequest(
        RowId id,
        String prompt,
        Long seed,
        Integer width,
        Integer height,
        Integer steps,
        Double guidance,
        String initImage,
        Double strength,
        List<String> referenceImages) {
    RowRequest {
        referenceImages = List.copyOf(referenceImages);
    }

    /** @return the seed to use: the row's, else the one derived from the id */
    long effectiveSeed() {
        return seed != null ? seed : id.derivedSeed();
    }
}
