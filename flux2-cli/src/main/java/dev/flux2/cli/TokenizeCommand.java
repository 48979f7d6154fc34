package dev.flux2.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.Flux2Models;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.api.ModelSummary.DetailKeys;
import dev.flux2.hub.FileSelection;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code flux2 tokenize}: prints the text encoder's input for a prompt as one JSON object,
 * {@code {"input_ids": [...], "attention_mask": [...], "real_tokens": N, "truncated": K}}, with arrays of the
 * bundle's {@code text_seq_len} and the tokenizer from its {@code tokenizer_dir}. Both come from the backend's
 * description of the folder ({@link Flux2Models#inspect}: the details {@value ModelSummary.DetailKeys#TEXT_SEQ_LEN} and
 * {@value ModelSummary.DetailKeys#TOKENIZER_DIR}), so the config is read by the backend only and the rest of the bundle may be absent.
 */
@Command(
        name = "tokenize",
        mixinStandardHelpOptions = true,
        description = "Print the token ids and attention mask the text encoder gets for a prompt, as one JSON object.")
final class TokenizeCommand extends BaseCommand {
    @Mixin
    ModelOption modelOption;

    @Option(
            names = {"-p", "--prompt"},
            required = true,
            paramLabel = "TEXT",
            description = "The prompt, used verbatim.")
    String prompt;

    @Override
    public Integer call() throws IOException {
        Path model = modelOption.resolve(true, FileSelection.CONFIG_AND_TOKENIZER);
        ModelSummary summary = Flux2Models.inspect(model);
        String tokenizerDir = summary.tokenizerDir().orElseThrow(() -> unreported(summary, DetailKeys.TOKENIZER_DIR));
        int textSeqLen = summary.textSequenceLength().orElseThrow(() -> unreported(summary, DetailKeys.TEXT_SEQ_LEN));
        TokenizedPrompt tokens;
        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(model.resolve(tokenizerDir), textSeqLen)) {
            tokens = tokenizer.tokenize(prompt);
        }
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ArrayNode ids = root.putArray("input_ids");
        for (long id : tokens.inputIds()) {
            ids.add(id);
        }
        ArrayNode mask = root.putArray("attention_mask");
        for (long m : tokens.attentionMask()) {
            mask.add(m);
        }
        root.put("real_tokens", tokens.realTokens());
        root.put("truncated", tokens.truncatedTokens());
        out().println(json.writeValueAsString(root));
        out().flush();
        return ExitCodes.OK;
    }

    private static ModelLoadException unreported(ModelSummary summary, String key) {
        return new ModelLoadException("backend '" + summary.backend() + "' does not report '" + key + "' for "
                + summary.directory() + ", so the tokenizer cannot be found (flux2 tokenize needs an ONNX bundle)");
    }
}
