package dev.flux2.tokenizer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Checks a {@code tokenizer.json} before the native tokenizer sees it: its size, and that the parts which run
 * regular expressions over the prompt are the ones of Qwen3 that were analysed.
 *
 * <p>Why: HuggingFace tokenizers runs a {@code Split} pre-tokenizer's (or a {@code Replace} normaliser's) regex
 * with Oniguruma; when a search exceeds Oniguruma's retry limit ("retry-limit-in-match over") the Rust code panics
 * and the whole JVM aborts (SIGABRT, not catchable from Java). Qwen3's pattern backtracks at most over one run of
 * whitespace per match, so with texts bounded by {@link dev.flux2.api.GenerationLimits#MAX_PROMPT_CHARS} it stays
 * far below that limit (11 million spaces exceed it; 65,536 tokenize in 40 ms); a user-supplied pattern such as
 * {@code (a+)+$} can exceed it on a prompt of 30 characters. So every regex of the normaliser and pre-tokenizer must
 * be Qwen3's, and a BPE model must have no dropout (dropout makes tokenization random). Only the small top-level
 * parts are read, in one streaming pass; the vocabulary and merges are skipped.
 */
final class TokenizerDefinition {
    /** Qwen3's {@code tokenizer.json} is 11 MB; no tokenizer this SDK runs comes near 64 MiB. */
    static final long MAX_TOKENIZER_JSON_BYTES = 64L << 20;

    /**
     * The version of the rules below, part of the name of {@link CheckedTokenizers}' markers: bump it with every
     * change to what {@link #check} accepts, so that contents checked by the old rules are checked again.
     */
    static final int RULES_VERSION = 1;

    /** The regex of Qwen3's (and Qwen2.5's) {@code Split} pre-tokenizer, the only user-supplied regex accepted. */
    static final String QWEN3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}|"
            + " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenizerDefinition() {}

    /**
     * Reads the file whole, within {@link #MAX_TOKENIZER_JSON_BYTES}: the bytes that are checked (or found in
     * {@link CheckedTokenizers}) are the bytes given to the native tokenizer, never a second read of a file that may
     * have changed in between.
     *
     * @param tokenizerJson the file
     * @return its bytes
     * @throws ModelLoadException naming the file if it is not a readable regular file or is too large
     */
    static byte[] read(Path tokenizerJson) {
        return ModelFiles.readBounded(tokenizerJson, "tokenizer file", MAX_TOKENIZER_JSON_BYTES);
    }

    /**
     * @param tokenizerJson the file, for the messages
     * @param content its bytes, from {@link #read}
     * @throws ModelLoadException naming the file, the field, what was expected and what was found
     */
    static void check(Path tokenizerJson, byte[] content) {
        try (JsonParser p = new JsonFactory(JSON).createParser(content)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw refuse(tokenizerJson, "the file", "a JSON object", String.valueOf(p.currentToken()));
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "normalizer", "pre_tokenizer" -> checkRegexes(tokenizerJson, field, p.readValueAsTree());
                    case "model" -> checkModel(tokenizerJson, p);
                    default -> p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            throw new ModelLoadException(
                    "Malformed tokenizer file " + tokenizerJson + ": " + e.getOriginalMessage()
                            + (e.getLocation() == null
                                    ? ""
                                    : " (line " + e.getLocation().getLineNr() + ", column "
                                            + e.getLocation().getColumnNr() + ")"),
                    e);
        } catch (IOException e) {
            throw new ModelLoadException(
                    "Cannot read tokenizer file " + tokenizerJson + ": " + ModelFiles.reason(e), e);
        }
    }

    /**
     * Every {@code Regex} pattern in a normaliser or pre-tokenizer (a {@code Split}, a {@code Replace}, nested in a
     * {@code Sequence}) must be Qwen3's: the built-in ones (ByteLevel's, Whitespace's) match in linear time per match,
     * a user-supplied one may not. String patterns are literal and safe.
     */
    private static void checkRegexes(Path file, String field, JsonNode node) {
        if (node == null) {
            return;
        }
        if (node.isObject()) {
            JsonNode pattern = node.get("pattern");
            if (pattern != null && pattern.has("Regex")) {
                String regex = pattern.get("Regex").asText();
                if (!regex.equals(QWEN3_REGEX)) {
                    throw refuse(
                            file,
                            field + " " + node.path("type").asText("?") + " regex",
                            "Qwen3's split pattern (other regexes can backtrack without bound and abort the JVM"
                                    + " inside the native tokenizer)",
                            abbreviate(pattern));
                }
            }
        }
        for (JsonNode child : node) {
            checkRegexes(file, field, child);
        }
    }

    /** Reads {@code model.dropout}, skipping the vocabulary and merges unparsed. */
    private static void checkModel(Path file, JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw refuse(file, "model", "a model object", String.valueOf(p.currentToken()));
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("dropout")) {
                if (value != JsonToken.VALUE_NULL && !(value.isNumeric() && p.getDoubleValue() == 0.0)) {
                    throw refuse(file, "model.dropout", "null (deterministic tokenization, as Qwen3)", p.getText());
                }
            } else {
                p.skipChildren();
            }
        }
    }

    private static ModelLoadException refuse(Path file, String field, String expected, String found) {
        return new ModelLoadException("Tokenizer file " + file + ": " + field + " must be " + expected + ", found "
                + found + "; expected the Qwen3 tokenizer of FLUX.2 [klein]");
    }

    private static String abbreviate(JsonNode node) {
        String s = String.valueOf(node);
        return s.length() > 200 ? s.substring(0, 197) + "..." : s;
    }
}
