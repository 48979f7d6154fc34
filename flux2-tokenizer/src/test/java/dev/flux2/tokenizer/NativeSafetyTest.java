package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.testkit.TokenizerFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24, "the JVM dies": nothing that can make the native tokenizer panic reaches it. A text longer than
 * {@link GenerationLimits#MAX_PROMPT_CHARS} is refused before native code; the longest accepted text of the worst
 * kind measured (spaces) tokenizes; a {@code tokenizer.json} with a regex other than Qwen3's, with dropout, or without
 * the chat template's special tokens is refused at load. The 11-million-space prompt that used to abort the JVM runs
 * in a child JVM, so that a regression kills the child and fails this test instead of the test run.
 */
class NativeSafetyTest {
    @TempDir
    Path temp;

    @Test
    void theLongestAcceptedTextOfSpacesTokenizesAndOneMoreCharIsRefused() {
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(TokenizerFixture.directory(), 512)) {
            String longest = " ".repeat(GenerationLimits.MAX_PROMPT_CHARS);
            // Qwen3's longest whitespace token is 128 spaces: 65,536 spaces are exactly 512 of them.
            assertEquals(512, tokenizer.encodeRaw(longest).length);
            assertEquals(512, tokenizer.tokenize(longest).realTokens());
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> tokenizer.tokenize(longest + " "));
            assertTrue(e.getMessage().contains("MAX_PROMPT_CHARS"), e.getMessage());
            assertThrows(InvalidRequestException.class, () -> tokenizer.encodeRaw(longest + " "));
        }
    }

    @Test
    void elevenMillionSpacesAreRefusedInAChildJvmThatSurvives() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-Dai.djl.offline=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(HugePromptChild.class.getName());
        command.add(TokenizerFixture.directory().toString());
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = child.getInputStream().readAllBytes();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child JVM did not finish");
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, child.exitValue(), "the child JVM died (134 = SIGABRT, the native panic):\n" + text);
        assertTrue(text.contains("refused: prompt has 11000000 characters"), text);
    }

    @Test
    void aPreTokenizerRegexOtherThanQwen3sIsRefusedBeforeNativeCode() throws IOException {
        Path folder = editedFixture(root -> {
            ObjectNode split = (ObjectNode)
                    root.path("pre_tokenizer").path("pretokenizers").get(0);
            ((ObjectNode) split.get("pattern")).put("Regex", "(a+)+$");
        });
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512).close());
        assertTrue(
                e.getMessage().contains("pre_tokenizer Split regex")
                        && e.getMessage().contains("(a+)+$"),
                e.getMessage());
    }

    @Test
    void aNormalizerRegexIsRefusedAndDropoutToo() throws IOException {
        Path regex = editedFixture(root -> root.putObject("normalizer")
                .put("type", "Replace")
                .put("content", "")
                .putObject("pattern")
                .put("Regex", "(x|xx)+y"));
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(regex, 512).close());
        assertTrue(e.getMessage().contains("normalizer Replace regex"), e.getMessage());
        Path dropout = editedFixture(root -> ((ObjectNode) root.get("model")).put("dropout", 0.1));
        ModelLoadException d = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(dropout, 512).close());
        assertTrue(d.getMessage().contains("model.dropout") && d.getMessage().contains("0.1"), d.getMessage());
    }

    @Test
    void aTokenizerWithoutTheTemplatesSpecialTokensIsRefused() throws IOException {
        Path folder = editedFixture(root -> {
            ArrayNode added = (ArrayNode) root.get("added_tokens");
            for (int i = added.size() - 1; i >= 0; i--) {
                if (added.get(i).path("content").asText().equals("<|im_start|>")) {
                    added.remove(i);
                }
            }
        });
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512).close());
        assertTrue(e.getMessage().contains("<|im_start|> is not a single token"), e.getMessage());
    }

    private interface Edit {
        void apply(ObjectNode root);
    }

    private Path editedFixture(Edit edit) throws IOException {
        Path folder = Files.createDirectories(temp.resolve("tokenizer-" + System.nanoTime()));
        TokenizerFixture.copyTo(folder);
        ObjectMapper json = new ObjectMapper();
        ObjectNode root =
                (ObjectNode) json.readTree(folder.resolve("tokenizer.json").toFile());
        edit.apply(root);
        json.writeValue(folder.resolve("tokenizer.json").toFile(), root);
        return folder;
    }

    /** The child JVM: loads the fixture and tokenizes 11 million spaces, which aborted the JVM before the limit. */
    static final class HugePromptChild {
        public static void main(String[] args) {
            try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(Path.of(args[0]), 512)) {
                tokenizer.tokenize(" ".repeat(11_000_000));
                System.out.println("tokenized");
            } catch (InvalidRequestException e) {
                System.out.println("refused: " + e.getMessage());
            }
        }
    }
}
