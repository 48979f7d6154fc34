package dev.flux2.spi;

/**
 * A prompt as the text encoder takes it.
 *
 * @param inputIds token ids, exactly the text sequence length, right-padded with the pad id
 * @param attentionMask 1 for real tokens, 0 for padding; same length
 * @param realTokens number of real (non-pad) tokens
 * @param truncatedTokens tokens cut on the right because the rendered prompt was too long
 */
public record TokenizedPrompt(long[] inputIds, long[] attentionMask, int realTokens, int truncatedTokens) {
    /** Validates the lengths. */
    public TokenizedPrompt {
        if (inputIds.length != attentionMask.length) {
            throw new IllegalArgumentException("inputIds (" + inputIds.length + ") and attentionMask ("
                    + attentionMask.length + ") must have the same length");
        }
        if (realTokens < 0 || realTokens > inputIds.length || truncatedTokens < 0) {
            throw new IllegalArgumentException("realTokens " + realTokens + " / truncatedTokens " + truncatedTokens
                    + " invalid for length " + inputIds.length);
        }
    }
}
