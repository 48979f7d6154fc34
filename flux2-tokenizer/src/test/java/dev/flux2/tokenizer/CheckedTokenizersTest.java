package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.ModelLoadException;
import dev.flux2.testkit.TokenizerFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33, "a one-shot run got slower": a tokenizer whose exact bytes passed the definition check before is not
 * checked again; new or changed bytes always are, and a refused file leaves no mark. The proof that a marker skips
 * the check uses a tokenizer with dropout (refused by the check, harmless to the native code): refused without its
 * marker, loaded with a forged one.
 */
class CheckedTokenizersTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    void aCheckedTokenizerIsRememberedByTheSha256OfItsBytes() throws IOException {
        Path folder = copyOfFixture("good");
        CheckedTokenizers store = CheckedTokenizers.in(temp.resolve("checks"));
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(folder, 512, store)) {
            assertEquals(151643, tokenizer.padId());
        }
        // The fixture's SHA-256 is recorded by flux2-testkit, independently of this code.
        assertEquals(
                List.of(TokenizerFixture.TOKENIZER_JSON_SHA256 + ".rules-" + TokenizerDefinition.RULES_VERSION),
                markers(temp.resolve("checks")));
        assertTrue(store.isChecked(TokenizerFixture.TOKENIZER_JSON_SHA256));
        try (Qwen3PromptTokenizer again = Qwen3PromptTokenizer.load(folder, 512, store)) {
            assertEquals(151643, again.padId());
        }
    }

    @Test
    void aChangedFileIsCheckedAgainAndAHostileOneStillRefused() throws IOException {
        Path folder = copyOfFixture("changing");
        CheckedTokenizers store = CheckedTokenizers.in(temp.resolve("checks"));
        Qwen3PromptTokenizer.load(folder, 512, store).close();
        // Same path, same size class, new bytes: a regex that backtracks without bound.
        edit(
                folder,
                root -> ((ObjectNode) root.path("pre_tokenizer")
                                .path("pretokenizers")
                                .get(0)
                                .get("pattern"))
                        .put("Regex", "(a+)+$"));
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512, store).close());
        assertTrue(
                e.getMessage().contains("pre_tokenizer Split regex")
                        && e.getMessage().contains("(a+)+$"),
                e.getMessage());
        // Refused twice: a refusal leaves no mark.
        assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512, store).close());
        assertEquals(1, markers(temp.resolve("checks")).size(), "only the good content is marked");
    }

    @Test
    void onlyAMarkerOfTheCurrentRulesSkipsTheCheck() throws IOException {
        Path folder = copyOfFixture("dropout");
        edit(folder, root -> ((ObjectNode) root.get("model")).put("dropout", 0.1));
        String sha256 = CheckedTokenizers.sha256(Files.readAllBytes(folder.resolve("tokenizer.json")));
        Path checks = Files.createDirectories(temp.resolve("checks"));
        CheckedTokenizers store = CheckedTokenizers.in(checks);

        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512, store).close());
        assertTrue(e.getMessage().contains("model.dropout"), e.getMessage());

        // A marker of older rules, or one that is a link, counts for nothing.
        Files.createFile(checks.resolve(sha256 + ".rules-" + (TokenizerDefinition.RULES_VERSION - 1)));
        Path elsewhere = Files.createFile(temp.resolve("elsewhere"));
        Files.createSymbolicLink(checks.resolve(sha256 + ".rules-" + TokenizerDefinition.RULES_VERSION), elsewhere);
        assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512, store).close());

        // A marker of the current rules is what skips the check (which is why the folder must be the user's own).
        Files.delete(checks.resolve(sha256 + ".rules-" + TokenizerDefinition.RULES_VERSION));
        Files.createFile(checks.resolve(sha256 + ".rules-" + TokenizerDefinition.RULES_VERSION));
        Qwen3PromptTokenizer.load(folder, 512, store).close();

        // Without a store, every load checks.
        assertThrows(
                ModelLoadException.class,
                () -> Qwen3PromptTokenizer.load(folder, 512, CheckedTokenizers.none())
                        .close());
    }

    @Test
    void aStoreThatCannotBeWrittenCostsOnlyTheSaving() throws IOException {
        Path notAFolder = Files.writeString(temp.resolve("a-file"), "x");
        CheckedTokenizers store = CheckedTokenizers.in(notAFolder.resolve("checks"));
        Path folder = copyOfFixture("unwritable");
        Qwen3PromptTokenizer.load(folder, 512, store).close();
        assertFalse(store.isChecked(TokenizerFixture.TOKENIZER_JSON_SHA256));
    }

    @Test
    void theSystemPropertyNamesTheFolderOrTurnsTheStoreOff() {
        String before = System.getProperty(CheckedTokenizers.FOLDER_PROPERTY);
        try {
            System.setProperty(
                    CheckedTokenizers.FOLDER_PROPERTY, temp.resolve("p").toString());
            assertEquals(
                    "CheckedTokenizers[" + temp.resolve("p") + "]",
                    CheckedTokenizers.defaultStore().toString());
            System.setProperty(CheckedTokenizers.FOLDER_PROPERTY, "off");
            assertEquals(
                    "CheckedTokenizers[off]", CheckedTokenizers.defaultStore().toString());
        } finally {
            if (before == null) {
                System.clearProperty(CheckedTokenizers.FOLDER_PROPERTY);
            } else {
                System.setProperty(CheckedTokenizers.FOLDER_PROPERTY, before);
            }
        }
    }

    private interface Edit {
        void apply(ObjectNode root);
    }

    private Path copyOfFixture(String name) throws IOException {
        Path folder = Files.createDirectories(temp.resolve(name));
        TokenizerFixture.copyTo(folder);
        return folder;
    }

    private static void edit(Path folder, Edit edit) throws IOException {
        ObjectNode root =
                (ObjectNode) JSON.readTree(folder.resolve("tokenizer.json").toFile());
        edit.apply(root);
        JSON.writeValue(folder.resolve("tokenizer.json").toFile(), root);
    }

    private static List<String> markers(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
