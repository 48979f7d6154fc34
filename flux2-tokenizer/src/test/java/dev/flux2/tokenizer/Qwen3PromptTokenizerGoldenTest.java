package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.spi.TokenizedPrompt;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case of the reference tokenization ({@code TokenizerFixture.goldens()}) (diffusers klein + transformers 5.17 / tokenizers 0.23.2
 * on the same Qwen3 tokenizer files), reproduced through {@link Qwen3PromptTokenizer} at klein's 512 tokens.
 * Expected values come only from the golden file; the last tests build new cases by combining golden ids.
 */
class Qwen3PromptTokenizerGoldenTest {

    private static final String FOX = "a red fox in the snow";
    private static final String MULTILINE = "line one\nline two\n\nline four";

    static List<Goldens.Case> cases() {
        return Goldens.cases();
    }

    static List<Goldens.RawEncoding> rawEncodings() {
        return Goldens.rawEncodings();
    }

    @Test
    void goldenFileHasTheExpectedCases() {
        // Guards against an empty or truncated golden file silently turning the parameterised tests into no-ops.
        assertEquals(6, Goldens.cases().size());
        assertEquals(6, Goldens.rawEncodings().size());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void rendersTheChatTemplateLikeTheReference(Goldens.Case golden) {
        assertEquals(golden.rendered(), PromptTemplate.render(golden.prompt()));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void tokenizesLikeTheReference(Goldens.Case golden) {
        TokenizedPrompt tokens = Goldens.sharedTokenizer().tokenize(golden.prompt());
        int real = golden.realTokens();

        assertEquals(Goldens.KLEIN_LENGTH, tokens.inputIds().length);
        assertEquals(Goldens.KLEIN_LENGTH, tokens.attentionMask().length);
        assertEquals(real, golden.inputIds().length, "golden file is self-consistent");
        assertEquals(real, tokens.realTokens());
        assertEquals(0, tokens.truncatedTokens());
        assertArrayEquals(golden.inputIds(), Arrays.copyOf(tokens.inputIds(), real));

        assertEquals("right", golden.paddingSide());
        long[] expectedPads = LongStream.generate(golden::padId)
                .limit(Goldens.KLEIN_LENGTH - real)
                .toArray();
        assertArrayEquals(expectedPads, Arrays.copyOfRange(tokens.inputIds(), real, Goldens.KLEIN_LENGTH));

        assertTrue(golden.maskIsPrefixOnes());
        long[] expectedMask = LongStream.range(0, Goldens.KLEIN_LENGTH)
                .map(i -> i < real ? 1 : 0)
                .toArray();
        assertArrayEquals(expectedMask, tokens.attentionMask());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void encodingTheRenderedStringGivesTheReferenceIds(Goldens.Case golden) {
        assertArrayEquals(golden.inputIds(), Goldens.sharedTokenizer().encodeRaw(golden.rendered()));
    }

    @ParameterizedTest
    @MethodSource("rawEncodings")
    void rawEncodingsMatchTheReference(Goldens.RawEncoding golden) {
        assertArrayEquals(golden.ids(), Goldens.sharedTokenizer().encodeRaw(golden.text()));
    }

    @Test
    void padIdIsTheReferencePadToken() {
        assertEquals(151643L, Goldens.padTokenId());
        assertEquals(Goldens.padTokenId(), Goldens.sharedTokenizer().padId());
        for (Goldens.Case golden : Goldens.cases()) {
            assertEquals(Goldens.padTokenId(), golden.padId());
        }
        assertEquals(Goldens.KLEIN_LENGTH, Goldens.sharedTokenizer().sequenceLength());
    }

    /**
     * Special-token text typed in a prompt is matched as the added token, exactly as transformers does
     * ({@code split_special_tokens=False} in the fixture's config), and splits the text around it. The golden file
     * has no such case, so the expectation is assembled from golden ids: the template's own {@code <|im_end|>} and
     * {@code <|im_start|>} ids, and the raw encoding of the fox prompt on each side.
     */
    @Test
    void specialTokenTextInsideThePromptBecomesTheSpecialToken() {
        long[] template = Goldens.caseFor("").inputIds();
        long imStart = template[0];
        long imEnd = template[3];
        long[] fox = Goldens.rawIdsFor(FOX);

        String prompt = FOX + "<|im_end|>" + FOX + "<|im_start|>";
        long[] expected = concat(prefix(), fox, new long[] {imEnd}, fox, new long[] {imStart}, suffix());

        TokenizedPrompt tokens = Goldens.sharedTokenizer().tokenize(prompt);
        assertEquals(expected.length, tokens.realTokens());
        assertArrayEquals(expected, Arrays.copyOf(tokens.inputIds(), expected.length));
    }

    /**
     * The rendered string is encoded in one piece: a prompt starting with a newline merges with the template's
     * {@code "user\n"} newline into one {@code "\n\n"} token (271, golden), which splicing separately encoded
     * pieces would split into two {@code "\n"} tokens (198, golden).
     */
    @Test
    void whitespaceAtThePromptEdgeMergesWithTheTemplate() {
        long[] prefix = prefix(); // <|im_start|> user \n
        long newlineNewline = Goldens.rawIdsFor(MULTILINE)[5];
        assertEquals(271L, newlineNewline, "golden \\n\\n id");

        long[] expected =
                concat(new long[] {prefix[0], prefix[1], newlineNewline}, Goldens.rawIdsFor(MULTILINE), suffix());
        TokenizedPrompt tokens = Goldens.sharedTokenizer().tokenize("\n" + MULTILINE);
        assertEquals(expected.length, tokens.realTokens());
        assertArrayEquals(expected, Arrays.copyOf(tokens.inputIds(), expected.length));
    }

    /** {@return the template ids before the prompt: the first 3 golden ids of the empty prompt} */
    static long[] prefix() {
        return Arrays.copyOf(Goldens.caseFor("").inputIds(), 3);
    }

    /** {@return the template ids after the prompt: the last 9 golden ids of the empty prompt} */
    static long[] suffix() {
        long[] empty = Goldens.caseFor("").inputIds();
        return Arrays.copyOfRange(empty, 3, empty.length);
    }

    static long[] concat(long[]... parts) {
        return Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
    }
}
