package dev.flux2.hub;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which of a model's files {@link ModelHub#resolve(RepoRef, FileSelection)} fetches: the commands that read only a
 * model's configuration ({@code flux2 tokenize}, {@code flux2 info}) need a few megabytes of its 4.87 GiB. Tested on
 * repository paths as the hub lists them ({@code tokenizer/tokenizer.json}), among the files a bundle needs at all
 * (graphs, external data, JSON, tokenizer files). Immutable.
 */
public final class FileSelection implements Predicate<String> {
    /** Every file of the model; the backend's check of the folder applies. */
    public static final FileSelection ALL = new FileSelection("of the whole model", path -> true);

    /**
     * Configuration, manifests and tokenizer files: JSON ({@code flux2-config.json}, the shard manifests,
     * {@code tokenizer.json}, {@code tokenizer_config.json}), chat templates, vocabularies and merges. What
     * {@code flux2 tokenize} reads; no graph, no weights.
     */
    public static final FileSelection CONFIG_AND_TOKENIZER =
            new FileSelection("of the configuration and tokenizer", FileSelection::isConfigOrTokenizer);

    /**
     * The configuration, tokenizer and ONNX graphs, without external data ({@code .onnx_data}, {@code .data}) and
     * {@code .safetensors}: what describing a model ({@code flux2 info}: graph signatures) reads. Graphs that embed
     * their weights come whole.
     */
    public static final FileSelection WITHOUT_EXTERNAL_DATA =
            new FileSelection("without external data", FileSelection::isNotExternalData);

    private static final Set<String> CONFIG_AND_TOKENIZER_EXTENSIONS =
            Set.of("json", "jinja", "txt", "model", "tiktoken");
    private static final Set<String> EXTERNAL_DATA = Set.of("onnx_data", "data", "safetensors");

    private final String description;
    private final Predicate<String> test;

    private FileSelection(String description, Predicate<String> test) {
        this.description = description;
        this.test = test;
    }

    /**
     * @param description what is selected, for messages ("of the text encoder")
     * @param test whether a repository path is selected
     * @return the selection
     */
    public static FileSelection of(String description, Predicate<String> test) {
        return new FileSelection(
                Objects.requireNonNull(description, "description"), Objects.requireNonNull(test, "test"));
    }

    /**
     * @param path a repository path
     * @return whether it is selected
     */
    @Override
    public boolean test(String path) {
        return test.test(path);
    }

    /** @return the description, e.g. "of the configuration and tokenizer" */
    @Override
    public String toString() {
        return description;
    }

    /** Whether a path is a configuration, manifest or tokenizer file ({@link #CONFIG_AND_TOKENIZER}). */
    static boolean isConfigOrTokenizer(String path) {
        return CONFIG_AND_TOKENIZER_EXTENSIONS.contains(extension(path));
    }

    private static boolean isNotExternalData(String path) {
        return !EXTERNAL_DATA.contains(extension(path));
    }

    private static String extension(String path) {
        String name = path.substring(path.lastIndexOf('/') + 1);
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
