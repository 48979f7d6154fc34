package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.TokenizerFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flux2 tokenize} against the reference token ids ({@code TokenizerFixture.goldens()}). */
class TokenizeCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The graphs and context width every config the backend reads must name; the graph files themselves need not
     * exist for tokenizing.
     */
    private static final String MODELS = "\"context_dim\": 64, \"models\": {\"text_encoder\": {\"file\": \"te.onnx\"},"
            + " \"transformer\": {\"file\": \"tr.onnx\"}, \"vae_decoder\": {\"file\": \"vae.onnx\"}}";

    @TempDir
    Path bundle;

    private void writeBundle(int textSeqLen) throws IOException {
        Path tok = Files.createDirectories(bundle.resolve("tok"));
        TokenizerFixture.copyTo(tok);
        Files.writeString(
                bundle.resolve("flux2-config.json"),
                "{\"model_variant\": \"t\", \"num_steps\": 4,"
                        + " \"text_seq_len\": " + textSeqLen + ", \"default_width\": 64, \"default_height\": 64,"
                        + " \"tokenizer_dir\": \"tok\", " + MODELS + "}");
    }

    @Test
    void printsIdsAndMaskOfTheConfiguredLengthMatchingTheReference() throws IOException {
        writeBundle(512);
        JsonNode golden = TokenizerFixture.goldens();
        long padId = golden.get("pad_token_id").asLong();
        for (int c : new int[] {0, 4, 5}) {
            JsonNode expected = golden.get("cases").get(c);
            CliHarness.Run run = CliHarness.run(
                    "tokenize",
                    "--model",
                    bundle.toString(),
                    "--prompt",
                    expected.get("prompt").asText());
            assertEquals(0, run.exitCode(), run.err());
            assertEquals(1, run.out().strip().lines().count(), "one JSON object on one line");
            JsonNode out = JSON.readTree(run.out());
            int real = expected.get("real_tokens").asInt();
            assertEquals(real, out.get("real_tokens").asInt());
            assertEquals(0, out.get("truncated").asInt());
            assertEquals(512, out.get("input_ids").size());
            assertEquals(512, out.get("attention_mask").size());
            for (int i = 0; i < 512; i++) {
                long id = i < real ? expected.get("input_ids").get(i).asLong() : padId;
                assertEquals(id, out.get("input_ids").get(i).asLong(), "case " + c + " id " + i);
                assertEquals(i < real ? 1 : 0, out.get("attention_mask").get(i).asInt(), "case " + c + " mask " + i);
            }
        }
    }

    @Test
    void aShortSequenceLengthTruncatesAndReportsTheCutTokens() throws IOException {
        writeBundle(16);
        JsonNode expected = TokenizerFixture.goldens().get("cases").get(0);
        CliHarness.Run run = CliHarness.run(
                "tokenize",
                "--model",
                bundle.toString(),
                "--prompt",
                expected.get("prompt").asText());
        assertEquals(0, run.exitCode(), run.err());
        JsonNode out = JSON.readTree(run.out());
        assertEquals(16, out.get("input_ids").size());
        assertEquals(16, out.get("real_tokens").asInt());
        assertEquals(
                expected.get("real_tokens").asInt() - 16, out.get("truncated").asInt());
        for (int i = 0; i < 16; i++) {
            assertEquals(
                    expected.get("input_ids").get(i).asLong(),
                    out.get("input_ids").get(i).asLong());
        }
    }

    @Test
    void missingTokenizerFolderIsAModelError() throws IOException {
        Files.writeString(
                bundle.resolve("flux2-config.json"),
                "{\"num_steps\": 4, \"text_seq_len\": 512,"
                        + " \"default_width\": 64, \"default_height\": 64, \"tokenizer_dir\": \"tok\", "
                        + MODELS + "}");
        CliHarness.Run run = CliHarness.run("tokenize", "--model", bundle.toString(), "--prompt", "p");
        assertEquals(ExitCodes.MODEL, run.exitCode(), run.err());
        assertTrue(run.err().contains("tok"), run.err());
    }
}
