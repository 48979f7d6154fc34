package dev.flux2.tokenizer;

import dev.flux2.api.ModelLoadException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The two files of a bundle's tokenizer folder, checked to exist before anything is parsed.
 *
 * @param directory the tokenizer folder ({@code tokenizer_dir} in {@code flux2-config.json}), absolute
 * @param tokenizerJson {@code tokenizer.json}: vocabulary, merges, added tokens, normaliser and pre-tokenizer
 * @param tokenizerConfig {@code tokenizer_config.json}: the transformers settings, of which only {@code pad_token}
 *                        is used
 */
record TokenizerFiles(Path directory, Path tokenizerJson, Path tokenizerConfig) {

    /** File name of the tokenizer definition inside the folder. */
    static final String TOKENIZER_JSON = "tokenizer.json";

    /** File name of the transformers tokenizer settings inside the folder. */
    static final String TOKENIZER_CONFIG_JSON = "tokenizer_config.json";

    /** Validates the components. */
    TokenizerFiles {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(tokenizerJson, "tokenizerJson");
        Objects.requireNonNull(tokenizerConfig, "tokenizerConfig");
    }

    /**
     * Finds both files in a tokenizer folder.
     *
     * @param directory the tokenizer folder
     * @return the folder and its two files, as absolute paths
     * @throws ModelLoadException naming the path if the folder or one of the files is missing or unreadable
     */
    static TokenizerFiles locate(Path directory) {
        Objects.requireNonNull(directory, "tokenizerDirectory");
        Path folder = directory.toAbsolutePath().normalize();
        if (!Files.exists(folder)) {
            throw new ModelLoadException("Tokenizer folder " + folder + " does not exist; expected the bundle's "
                    + "tokenizer_dir containing " + TOKENIZER_JSON + " and " + TOKENIZER_CONFIG_JSON);
        }
        if (!Files.isDirectory(folder)) {
            throw new ModelLoadException("Tokenizer folder " + folder + " is not a directory; expected the bundle's "
                    + "tokenizer_dir containing " + TOKENIZER_JSON + " and " + TOKENIZER_CONFIG_JSON);
        }
        return new TokenizerFiles(
                folder, requireFile(folder, TOKENIZER_JSON), requireFile(folder, TOKENIZER_CONFIG_JSON));
    }

    private static Path requireFile(Path folder, String name) {
        Path file = folder.resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new ModelLoadException("Tokenizer file " + file + " is missing; the tokenizer folder " + folder
                    + " must contain " + TOKENIZER_JSON + " and " + TOKENIZER_CONFIG_JSON);
        }
        if (!Files.isReadable(file)) {
            throw new ModelLoadException("Tokenizer file " + file + " exists but is not readable");
        }
        return file;
    }
}
