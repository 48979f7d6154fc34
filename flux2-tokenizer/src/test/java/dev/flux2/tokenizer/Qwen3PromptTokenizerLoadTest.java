package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.ModelLoadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading: every broken tokenizer folder fails with a {@link ModelLoadException} that names the path and the
 * problem. Most cases use a tiny hand-written word-level {@code tokenizer.json}, which loads in milliseconds.
 */
class Qwen3PromptTokenizerLoadTest {

    /**
     * A word-level tokenizer: [PAD]=0, [CLS]=1, a=2, b=3, [UNK]=4, and the chat template's special tokens 5–8 (which
     * every tokenizer must have); splits on whitespace.
     */
    private static final String TINY_TOKENIZER = """
            {"version": "1.0", "truncation": null, "padding": null,
             "added_tokens": [
               {"id": 0, "content": "[PAD]", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true},
               {"id": 1, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true},
               {"id": 5, "content": "<|im_start|>", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true},
               {"id": 6, "content": "<|im_end|>", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true},
               {"id": 7, "content": "<think>", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true},
               {"id": 8, "content": "</think>", "single_word": false, "lstrip": false, "rstrip": false,
                "normalized": false, "special": true}],
             "normalizer": null,
             "pre_tokenizer": {"type": "WhitespaceSplit"},
             "post_processor": %s,
             "decoder": null,
             "model": {"type": "WordLevel", "vocab": {"[PAD]": 0, "[CLS]": 1, "a": 2, "b": 3, "[UNK]": 4},
                       "unk_token": "[UNK]"}}
            """;

    /** A post-processor that puts [CLS] before every sequence, as BERT-style tokenizers do. */
    private static final String CLS_POST_PROCESSOR = """
            {"type": "TemplateProcessing",
             "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
             "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                      {"Sequence": {"id": "B", "type_id": 1}}],
             "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}}
            """;

    @TempDir
    Path temp;

    private Path tinyFolder(String postProcessor, String tokenizerConfig) throws IOException {
        Path folder = Files.createDirectories(temp.resolve("tokenizer"));
        Files.writeString(folder.resolve("tokenizer.json"), TINY_TOKENIZER.formatted(postProcessor));
        Files.writeString(folder.resolve("tokenizer_config.json"), tokenizerConfig);
        return folder;
    }

    private static ModelLoadException loadFails(Path folder) {
        return assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512).close());
    }

    private static void assertMentions(ModelLoadException e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), () -> "message should mention " + part + ": " + e.getMessage());
        }
    }

    @Test
    void tinyTokenizerLoadsAndPadsWithItsPadToken() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"[PAD]\"}");
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(folder, 8)) {
            assertEquals(0L, tokenizer.padId());
            assertEquals("[2, 3, 2]", Arrays.toString(tokenizer.encodeRaw("a b a")));
        }
    }

    @Test
    void padTokenMayBeAnObjectWithContent() throws IOException {
        Path folder = tinyFolder("null", """
                {"pad_token": {"__type": "AddedToken", "content": "[CLS]", "lstrip": false, "normalized": false,
                               "rstrip": false, "single_word": false, "special": true}}""");
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(folder, 8)) {
            assertEquals(1L, tokenizer.padId());
        }
    }

    @Test
    void missingFolder() {
        Path folder = temp.resolve("no-such-tokenizer");
        assertMentions(loadFails(folder), folder.toString(), "does not exist");
    }

    @Test
    void folderIsAFile() throws IOException {
        Path file = Files.writeString(temp.resolve("tokenizer"), "x");
        assertMentions(loadFails(file), file.toString(), "not a directory");
    }

    @Test
    void missingTokenizerJson() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"[PAD]\"}");
        Files.delete(folder.resolve("tokenizer.json"));
        assertMentions(loadFails(folder), folder.resolve("tokenizer.json").toString(), "missing");
    }

    @Test
    void missingTokenizerConfigJson() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"[PAD]\"}");
        Files.delete(folder.resolve("tokenizer_config.json"));
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "missing");
    }

    /** An interrupted download: the first 64 KiB of the real Qwen3 tokenizer.json. */
    @Test
    void truncatedTokenizerJson() throws IOException {
        Path folder = Files.createDirectories(temp.resolve("tokenizer"));
        Path fixture = Goldens.fixtureTokenizerDir();
        byte[] head = Arrays.copyOf(Files.readAllBytes(fixture.resolve("tokenizer.json")), 64 * 1024);
        Files.write(folder.resolve("tokenizer.json"), head);
        Files.copy(fixture.resolve("tokenizer_config.json"), folder.resolve("tokenizer_config.json"));
        assertMentions(loadFails(folder), folder.resolve("tokenizer.json").toString(), "Malformed");
    }

    @Test
    void tokenizerJsonWithoutModel() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"[PAD]\"}");
        Files.writeString(folder.resolve("tokenizer.json"), "{\"version\": \"1.0\"}");
        assertMentions(loadFails(folder), folder.resolve("tokenizer.json").toString(), "Malformed");
    }

    @Test
    void malformedTokenizerConfigJson() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"[PAD]\",");
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "JSON");
    }

    @Test
    void tokenizerConfigIsNotAnObject() throws IOException {
        Path folder = tinyFolder("null", "[\"[PAD]\"]");
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "JSON object");
    }

    @Test
    void missingPadToken() throws IOException {
        Path folder = tinyFolder("null", "{\"eos_token\": \"[CLS]\"}");
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "no pad_token");
    }

    @Test
    void nullPadToken() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": null}");
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "no pad_token");
    }

    @Test
    void padTokenOfTheWrongType() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": 0}");
        assertMentions(
                loadFails(folder), folder.resolve("tokenizer_config.json").toString(), "pad_token must be");
    }

    @Test
    void padTokenThatIsNotOneToken() throws IOException {
        Path folder = tinyFolder("null", "{\"pad_token\": \"a b\"}");
        assertMentions(
                loadFails(folder),
                folder.resolve("tokenizer_config.json").toString(),
                folder.resolve("tokenizer.json").toString(),
                "\"a b\"",
                "2 ids");
    }

    /** Right truncation equals the reference's only when nothing is appended after truncation: refuse otherwise. */
    @Test
    void postProcessorThatAddsSpecialTokens() throws IOException {
        Path folder = tinyFolder(CLS_POST_PROCESSOR, "{\"pad_token\": \"[PAD]\"}");
        assertMentions(loadFails(folder), folder.resolve("tokenizer.json").toString(), "post_processor", "[1, 2]");
    }

    @Test
    void nonPositiveSequenceLength() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> Qwen3PromptTokenizer.load(Goldens.fixtureTokenizerDir(), 0));
        assertTrue(e.getMessage().contains("sequenceLength"), e.getMessage());
    }

    @Test
    void nullFolder() {
        assertThrows(NullPointerException.class, () -> Qwen3PromptTokenizer.load(null, 512));
    }
}
