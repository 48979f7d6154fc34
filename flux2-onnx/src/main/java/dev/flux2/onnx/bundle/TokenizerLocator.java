package dev.flux2.onnx.bundle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds a folder's tokenizer when no config names it: the first of {@code tokenizer/} and the folder itself (the
 * tokenizer beside the graphs) that holds a {@code tokenizer.json}, then the folders of the graphs found. Stateless.
 */
final class TokenizerLocator {
    /** The file a tokenizer folder must hold. */
    static final String TOKENIZER_JSON = "tokenizer.json";

    private TokenizerLocator() {}

    /**
     * @param folder a model folder
     * @param graphFolders the folders of its graphs, in order
     * @return the tokenizer folder, absolute, if one is found
     */
    static Optional<Path> find(Path folder, List<Path> graphFolders) {
        List<Path> candidates = new ArrayList<>();
        candidates.add(folder.resolve(KleinDefaults.TOKENIZER_DIR));
        candidates.add(folder);
        candidates.addAll(graphFolders);
        return candidates.stream()
                .map(p -> p.toAbsolutePath().normalize())
                .filter(p -> Files.isRegularFile(p.resolve(TOKENIZER_JSON)))
                .findFirst();
    }
}
