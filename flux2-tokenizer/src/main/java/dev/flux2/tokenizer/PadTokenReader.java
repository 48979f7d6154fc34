package dev.flux2.tokenizer;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads the text of {@code pad_token} from a transformers {@code tokenizer_config.json}.
 *
 * <p>Only this one setting is read on purpose: the reference pads with it, while the other settings either do not
 * apply to a byte-level BPE tokenizer or are already part of {@code tokenizer.json}. Stateless and thread-safe.
 */
final class PadTokenReader {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Qwen3's is 10 KB (mostly the chat template); 4 MiB refuses a runaway file before it fills the heap. */
    static final long MAX_CONFIG_BYTES = 4L << 20;

    private PadTokenReader() {}

    /**
     * Reads the pad token's text.
     *
     * @param configFile the {@code tokenizer_config.json} to read
     * @return the pad token's text, e.g. {@code <|endoftext|>} for Qwen3; never empty
     * @throws ModelLoadException naming the file if it is not valid JSON, is not an object, or has no usable
     *                            {@code pad_token} (a string, or an object with a string {@code content})
     */
    static String read(Path configFile) {
        JsonNode root;
        try {
            root = JSON.readTree(ModelFiles.readBounded(configFile, "tokenizer config", MAX_CONFIG_BYTES));
        } catch (IOException e) {
            throw new ModelLoadException(
                    "Cannot parse tokenizer config " + configFile + " as JSON: " + messageOf(e), e);
        }
        if (root == null || !root.isObject()) {
            throw new ModelLoadException("Tokenizer config " + configFile + " must hold a JSON object, found "
                    + (root == null ? "no content" : root.getNodeType()));
        }
        JsonNode pad = root.get("pad_token");
        if (pad == null || pad.isNull()) {
            throw new ModelLoadException("Tokenizer config " + configFile + " has no pad_token; FLUX.2 [klein] "
                    + "right-pads every prompt with it (Qwen3: \"<|endoftext|>\")");
        }
        JsonNode text = pad.isObject() ? pad.get("content") : pad;
        if (text == null || !text.isTextual() || text.asText().isEmpty()) {
            throw new ModelLoadException("Tokenizer config " + configFile + ": pad_token must be a non-empty string "
                    + "or an object with a non-empty string \"content\", found " + pad);
        }
        return text.asText();
    }

    /** Jackson's message with its location but without the source excerpt; the plain message for other errors. */
    private static String messageOf(IOException e) {
        if (e instanceof JsonProcessingException json) {
            JsonLocation where = json.getLocation();
            return json.getOriginalMessage()
                    + (where == null ? "" : " (line " + where.getLineNr() + ", column " + where.getColumnNr() + ")");
        }
        return e.toString();
    }
}
