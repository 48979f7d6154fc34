package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.flux2.spi.TokenizedPrompt;
import org.junit.jupiter.api.Test;

/** Truncation and padding arithmetic on hand-written sequences. */
class PromptSequenceTest {

    private static final long PAD = 99;

    @Test
    void shortSequenceIsRightPaddedWithMaskOfOnesThenZeros() {
        TokenizedPrompt p = PromptSequence.fit(new long[] {5, 6, 7}, 6, PAD);
        assertArrayEquals(new long[] {5, 6, 7, 99, 99, 99}, p.inputIds());
        assertArrayEquals(new long[] {1, 1, 1, 0, 0, 0}, p.attentionMask());
        assertEquals(3, p.realTokens());
        assertEquals(0, p.truncatedTokens());
    }

    @Test
    void exactLengthIsNeitherPaddedNorTruncated() {
        TokenizedPrompt p = PromptSequence.fit(new long[] {5, 6, 7}, 3, PAD);
        assertArrayEquals(new long[] {5, 6, 7}, p.inputIds());
        assertArrayEquals(new long[] {1, 1, 1}, p.attentionMask());
        assertEquals(3, p.realTokens());
        assertEquals(0, p.truncatedTokens());
    }

    @Test
    void longSequenceKeepsItsFirstIdsAndCountsTheCut() {
        TokenizedPrompt p = PromptSequence.fit(new long[] {1, 2, 3, 4, 5, 6, 7}, 4, PAD);
        assertArrayEquals(new long[] {1, 2, 3, 4}, p.inputIds());
        assertArrayEquals(new long[] {1, 1, 1, 1}, p.attentionMask());
        assertEquals(4, p.realTokens());
        assertEquals(3, p.truncatedTokens());
    }

    @Test
    void emptySequenceIsAllPadding() {
        TokenizedPrompt p = PromptSequence.fit(new long[0], 2, PAD);
        assertArrayEquals(new long[] {99, 99}, p.inputIds());
        assertArrayEquals(new long[] {0, 0}, p.attentionMask());
        assertEquals(0, p.realTokens());
    }

    @Test
    void inputIsNotModified() {
        long[] ids = {1, 2, 3};
        PromptSequence.fit(ids, 2, PAD);
        assertArrayEquals(new long[] {1, 2, 3}, ids);
    }

    @Test
    void nonPositiveLengthIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> PromptSequence.fit(new long[] {1}, 0, PAD));
    }
}
