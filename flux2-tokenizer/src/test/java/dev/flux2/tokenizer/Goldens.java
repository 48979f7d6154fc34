package dev.flux2.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testkit.TokenizerFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Test access to the reference token ids and the Qwen3 tokenizer fixture, both shipped by flux2-testkit
 * ({@link TokenizerFixture}). Also holds one shared 512-token tokenizer, loaded once per test JVM (parsing the 11 MB
 * {@code tokenizer.json} is slow, see docs/performance.md) and never closed: it lives as long as the JVM.
 */
final class Goldens {

    /** The text sequence length of FLUX.2 [klein] ({@code text_seq_len} in the bundle config). */
    static final int KLEIN_LENGTH = 512;

    /** One {@code cases[]} entry of the golden file. */
    record Case(
            String prompt,
            String rendered,
            long[] inputIds,
            int realTokens,
            long padId,
            boolean maskIsPrefixOnes,
            String paddingSide) {
        @Override
        public String toString() {
            return "prompt=\"" + prompt.replace("\n", "\\n") + "\"";
        }
    }

    /** One {@code raw_encodings[]} entry of the golden file. */
    record RawEncoding(String text, long[] ids) {
        @Override
        public String toString() {
            return "text=\"" + text.replace("\n", "\\n") + "\"";
        }
    }

    private static final JsonNode ROOT = readGoldens();
    private static Qwen3PromptTokenizer shared;

    private Goldens() {}

    /** {@return the real Qwen3 tokenizer folder of the test fixture} */
    static Path fixtureTokenizerDir() {
        return TokenizerFixture.directory();
    }

    /** {@return the tokenizer of the fixture at 512 tokens, shared by the tests of this JVM} */
    static synchronized Qwen3PromptTokenizer sharedTokenizer() {
        if (shared == null) {
            shared = Qwen3PromptTokenizer.load(fixtureTokenizerDir(), KLEIN_LENGTH);
        }
        return shared;
    }

    /** {@return the top-level pad_token_id of the golden file} */
    static long padTokenId() {
        return ROOT.get("pad_token_id").asLong();
    }

    /** {@return every golden case} */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (JsonNode c : ROOT.get("cases")) {
            cases.add(new Case(
                    c.get("prompt").asText(),
                    c.get("rendered").asText(),
                    longs(c.get("input_ids")),
                    c.get("real_tokens").asInt(),
                    c.get("pad_id").asLong(),
                    c.get("mask_is_prefix_ones").asBoolean(),
                    c.get("padding_side").asText()));
        }
        return cases;
    }

    /** {@return every golden raw encoding} */
    static List<RawEncoding> rawEncodings() {
        List<RawEncoding> raw = new ArrayList<>();
        for (JsonNode r : ROOT.get("raw_encodings")) {
            raw.add(new RawEncoding(r.get("text").asText(), longs(r.get("ids"))));
        }
        return raw;
    }

    /** {@return the golden case with this prompt} */
    static Case caseFor(String prompt) {
        return cases().stream()
                .filter(c -> c.prompt().equals(prompt))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no golden case for prompt " + prompt));
    }

    /** {@return the golden raw ids of this text} */
    static long[] rawIdsFor(String text) {
        return rawEncodings().stream()
                .filter(r -> r.text().equals(text))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no golden raw encoding for " + text))
                .ids();
    }

    private static long[] longs(JsonNode array) {
        long[] values = new long[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = array.get(i).asLong();
        }
        return values;
    }

    private static JsonNode readGoldens() {
        return TokenizerFixture.goldens();
    }
}
