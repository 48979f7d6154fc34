package dev.flux2.tokenizer;

import dev.flux2.spi.TokenizedPrompt;
import java.util.Arrays;

/**
 * Fits a full token sequence to the text encoder's fixed length, as {@code truncation=True,
 * padding="max_length", max_length=L} does in the reference: keep the first L ids (cutting on the right, template
 * tail included), then right-pad with the pad id; the mask is 1 for kept ids and 0 for pads. Stateless.
 */
final class PromptSequence {

    private PromptSequence() {}

    /**
     * Truncates and pads.
     *
     * @param fullIds every id of the encoded rendered prompt, untruncated; not modified
     * @param length the text sequence length L, positive
     * @param padId the id written into padding positions
     * @return ids and mask of exactly {@code length}, with {@code realTokens = min(n, L)} and
     *         {@code truncatedTokens = max(0, n - L)} for {@code n = fullIds.length}
     */
    static TokenizedPrompt fit(long[] fullIds, int length, long padId) {
        if (length <= 0) {
            throw new IllegalArgumentException("length must be positive, got " + length);
        }
        int real = Math.min(fullIds.length, length);
        long[] ids = new long[length];
        System.arraycopy(fullIds, 0, ids, 0, real);
        Arrays.fill(ids, real, length, padId);
        long[] mask = new long[length];
        Arrays.fill(mask, 0, real, 1L);
        return new TokenizedPrompt(ids, mask, real, fullIds.length - real);
    }
}
