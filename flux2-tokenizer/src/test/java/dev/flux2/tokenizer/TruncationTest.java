package dev.flux2.tokenizer;

import static dev.flux2.tokenizer.Qwen3PromptTokenizerGoldenTest.concat;
import static dev.flux2.tokenizer.Qwen3PromptTokenizerGoldenTest.prefix;
import static dev.flux2.tokenizer.Qwen3PromptTokenizerGoldenTest.suffix;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flux2.spi.TokenizedPrompt;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Right truncation as in the reference ({@code truncation=True, max_length=L} on the rendered string): the result is
 * the first L ids of the full encoding, so a long prompt loses the template's tail, and {@code truncatedTokens} is
 * the exact number of ids cut.
 *
 * <p>Long prompts with a known encoding are built by repeating the words of the golden prompt
 * "a red fox in the snow": the Qwen2 pre-tokenizer splits them into the same word pieces, so a prompt of n words
 * encodes to n golden ids ({@code " a"} is 264 from the golden astronaut prompt, the other words come from the fox
 * prompt). Expected values never come from the code under test.
 */
class TruncationTest {

    private static final String FOX = "a red fox in the snow";
    private static final String ASTRONAUT = "A photo of an astronaut riding a horse on Mars, highly detailed, 8k";
    private static final String[] WORDS = {"a", " red", " fox", " in", " the", " snow"};
    private static final int TEMPLATE_TOKENS = 12;

    private static Qwen3PromptTokenizer tokenizer64;
    private static Qwen3PromptTokenizer tokenizer16;

    @BeforeAll
    static void load() {
        tokenizer64 = Qwen3PromptTokenizer.load(Goldens.fixtureTokenizerDir(), 64);
        tokenizer16 = Qwen3PromptTokenizer.load(Goldens.fixtureTokenizerDir(), 16);
    }

    @AfterAll
    static void close() {
        tokenizer64.close();
        tokenizer16.close();
    }

    /** A prompt of {@code words} words and its golden-derived encoding. */
    private record LongPrompt(String text, long[] promptIds) {
        long[] fullIds() {
            return concat(prefix(), promptIds, suffix());
        }
    }

    private static LongPrompt wordsPrompt(int words) {
        long[] fox = Goldens.rawIdsFor(FOX);
        long spaceA = Goldens.rawIdsFor(ASTRONAUT)[6]; // "riding| a| horse"
        StringBuilder text = new StringBuilder();
        long[] ids = new long[words];
        for (int i = 0; i < words; i++) {
            int w = i % WORDS.length;
            text.append(i > 0 && w == 0 ? " a" : WORDS[w]);
            ids[i] = i > 0 && w == 0 ? spaceA : fox[w];
        }
        return new LongPrompt(text.toString(), ids);
    }

    @Test
    void syntheticPromptsEncodeToTheGoldenWordIds() {
        LongPrompt prompt = wordsPrompt(40);
        assertEquals(264L, prompt.promptIds()[6]);
        assertArrayEquals(prompt.promptIds(), Goldens.sharedTokenizer().encodeRaw(prompt.text()));
        assertArrayEquals(prompt.fullIds(), Goldens.sharedTokenizer().encodeRaw(PromptTemplate.render(prompt.text())));
    }

    /**
     * 500 prompt tokens fill 512 exactly; 501-508 cut the template's tail from its end; from 509 on the tail is gone
     * and the sequence ends inside the prompt.
     */
    @ParameterizedTest
    @ValueSource(ints = {499, 500, 501, 503, 508, 509, 510, 700})
    void kleinLengthKeepsTheFirst512IdsOfTheFullEncoding(int words) {
        LongPrompt prompt = wordsPrompt(words);
        long[] full = prompt.fullIds();
        int length = Goldens.KLEIN_LENGTH;

        TokenizedPrompt tokens = Goldens.sharedTokenizer().tokenize(prompt.text());

        int kept = Math.min(full.length, length);
        assertEquals(kept, tokens.realTokens());
        assertEquals(Math.max(0, words + TEMPLATE_TOKENS - length), tokens.truncatedTokens());
        assertArrayEquals(Arrays.copyOf(full, kept), Arrays.copyOf(tokens.inputIds(), kept));
        assertArrayEquals(
                LongStream.generate(Goldens::padTokenId).limit(length - kept).toArray(),
                Arrays.copyOfRange(tokens.inputIds(), kept, length));
        assertEquals(kept, Arrays.stream(tokens.attentionMask()).sum());
        if (words >= length - 3) {
            // No template tail left: the last id is a prompt word, never re-appended <|im_end|> etc.
            assertEquals(prompt.promptIds()[length - 4], tokens.inputIds()[length - 1]);
        }
    }

    @Test
    void truncatedIdsEqualThePrefixOfTheUntruncatedEncoding() {
        LongPrompt prompt = wordsPrompt(1000);
        long[] fullFromTokenizer = Goldens.sharedTokenizer().encodeRaw(PromptTemplate.render(prompt.text()));
        assertArrayEquals(prompt.fullIds(), fullFromTokenizer);

        TokenizedPrompt tokens = Goldens.sharedTokenizer().tokenize(prompt.text());
        assertArrayEquals(Arrays.copyOf(fullFromTokenizer, Goldens.KLEIN_LENGTH), tokens.inputIds());
        assertEquals(1000 + TEMPLATE_TOKENS - Goldens.KLEIN_LENGTH, tokens.truncatedTokens());
        assertEquals(Goldens.KLEIN_LENGTH, tokens.realTokens());
    }

    @Test
    void goldenCasesFitIn64AndArePaddedTo64() {
        assertEquals(64, tokenizer64.sequenceLength());
        for (Goldens.Case golden : Goldens.cases()) {
            TokenizedPrompt tokens = tokenizer64.tokenize(golden.prompt());
            long[] expected = concat(
                    golden.inputIds(),
                    LongStream.generate(golden::padId)
                            .limit(64 - golden.realTokens())
                            .toArray());
            assertArrayEquals(expected, tokens.inputIds(), golden.toString());
            assertEquals(golden.realTokens(), tokens.realTokens());
            assertEquals(0, tokens.truncatedTokens());
        }
    }

    @Test
    void length64CutsALongPromptAndTheTemplateTail() {
        LongPrompt prompt = wordsPrompt(100);
        TokenizedPrompt tokens = tokenizer64.tokenize(prompt.text());
        assertArrayEquals(Arrays.copyOf(prompt.fullIds(), 64), tokens.inputIds());
        assertArrayEquals(LongStream.generate(() -> 1L).limit(64).toArray(), tokens.attentionMask());
        assertEquals(64, tokens.realTokens());
        assertEquals(100 + TEMPLATE_TOKENS - 64, tokens.truncatedTokens());
    }

    @Test
    void length16CutsTheGoldenFoxPromptInsideTheTemplateTail() {
        Goldens.Case fox = Goldens.caseFor(FOX); // 18 real tokens
        TokenizedPrompt tokens = tokenizer16.tokenize(FOX);
        assertArrayEquals(Arrays.copyOf(fox.inputIds(), 16), tokens.inputIds());
        assertEquals(16, tokens.realTokens());
        assertEquals(2, tokens.truncatedTokens());
    }
}
