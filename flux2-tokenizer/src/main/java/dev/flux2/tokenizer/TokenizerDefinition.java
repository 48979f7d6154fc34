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
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks a {@code tokenizer.json} before the native tokenizer sees it: its size, and that the parts which run
 * regular expressions over the prompt are the ones of Qwen3 that were analysed.
 *
 * <p>Why: HuggingFace tokenizers runs a {@code Split} pre-tokenizer's (or a {@code Replace} normaliser's) regex
 * with Oniguruma; when a search exceeds Oniguruma's retry limit the Rust code panics and the whole JVM aborts
 * (SIGABRT, not catchable from Java). Qwen3's pattern backtracks at most over one run of whitespace per match, so
 * with prompts bounded by {@link dev.flux2.api.GenerationLimits#MAX_PROMPT_CHARS} it stays far below that limit; an
 * arbitrary pattern ({@code (a+)+$}) can exceed it on a prompt of 30 characters. So the normaliser must be NFC or
 * absent, the pre-tokenizer exactly Qwen3's, and the model a BPE without dropout (dropout would make tokenization
 * random). Only the small top-level parts are read, in one streaming pass; the vocabulary and merges are skipped.
 */
final class TokenizerDefinition {
    /** Qwen3's {@code tokenizer.json} is 11 MB; no tokenizer this SDK runs comes near 64 MiB. */
    static final long MAX_TOKENIZER_JSON_BYTES = 64L << 20;

    /** The pre-tokenizer of Qwen3 (and Qwen2.5): its regex split, then byte-level mapping without a regex. */
    static final String QWEN3_PRE_TOKENIZER = "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\","
            + "\"pattern\":{\"Regex\":\"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|"
            + "\\\\p{N}| ?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+\"},"
            + "\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,"
            + "\"trim_offsets\":false,\"use_regex\":false}]}";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode EXPECTED_PRE_TOKENIZER = parse(QWEN3_PRE_TOKENIZER);

    private TokenizerDefinition() {}

    /**
     * @param tokenizerJson the file
     * @throws ModelLoadException naming the file, the field, what was expected and what was found
     */
    static void check(Path tokenizerJson) {
        ModelFiles.requireRegularFile(tokenizerJson, "tokenizer file", MAX_TOKENIZER_JSON_BYTES);
        boolean sawPreTokenizer = false;
        try (InputStream in = Files.newInputStream(tokenizerJson);
                JsonParser p = new JsonFactory(JSON).createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw refuse(tokenizerJson, "the file", "a JSON object", String.valueOf(p.currentToken()));
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "normalizer" -> checkNormalizer(tokenizerJson, p.readValueAsTree());
                    case "pre_tokenizer" -> {
                        sawPreTokenizer = true;
                        checkPreTokenizer(tokenizerJson, p.readValueAsTree());
                    }
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
        if (!sawPreTokenizer) {
            throw refuse(tokenizerJson, "pre_tokenizer", "Qwen3's pre-tokenizer", "no pre_tokenizer");
        }
    }

    private static void checkNormalizer(Path file, JsonNode normalizer) {
        if (normalizer == null || normalizer.isNull()) {
            return;
        }
        if (!(normalizer.isObject()
                && normalizer.size() == 1
                && "NFC".equals(normalizer.path("type").asText()))) {
            throw refuse(file, "normalizer", "{\"type\":\"NFC\"} or null (Qwen3's)", abbreviate(normalizer));
        }
    }

    private static void checkPreTokenizer(Path file, JsonNode preTokenizer) {
        if (!EXPECTED_PRE_TOKENIZER.equals(preTokenizer)) {
            throw refuse(
                    file,
                    "pre_tokenizer",
                    "Qwen3's pre-tokenizer (a Split on its regex, then ByteLevel): other regexes can backtrack"
                            + " without bound and abort the JVM inside the native tokenizer",
                    abbreviate(preTokenizer));
        }
    }

    /** Reads {@code model.type} and {@code model.dropout}, skipping the vocabulary and merges unparsed. */
    private static void checkModel(Path file, JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw refuse(file, "model", "a BPE model object", String.valueOf(p.currentToken()));
        }
        String type = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("type")) {
                type = value == JsonToken.VALUE_STRING ? p.getText() : String.valueOf(value);
            } else if (field.equals("dropout")) {
                if (value != JsonToken.VALUE_NULL && !(value.isNumeric() && p.getDoubleValue() == 0.0)) {
                    throw refuse(file, "model.dropout", "null (deterministic tokenization, as Qwen3)", p.getText());
                }
            } else {
                p.skipChildren();
            }
        }
        if (!"BPE".equals(type)) {
            throw refuse(file, "model.type", "BPE (Qwen3's byte-level BPE)", String.valueOf(type));
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

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
