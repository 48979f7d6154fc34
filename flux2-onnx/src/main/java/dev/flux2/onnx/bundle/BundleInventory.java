package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Every file a bundle names, with sizes, and every problem found with them.
 *
 * @param directory the bundle folder
 * @param files the files, config first, then each model entry's graph, manifest and shards, then the tokenizer
 * @param problems human-readable problems (missing files, wrong sizes, unreadable manifests); empty when complete
 */
public record BundleInventory(Path directory, List<BundleFile> files, List<String> problems) {

    /** Copies the lists. */
    public BundleInventory {
        Objects.requireNonNull(directory, "directory");
        files = List.copyOf(files);
        problems = List.copyOf(problems);
    }

    /** @throws ModelLoadException listing every problem, when there is any */
    void requireComplete() {
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder msg = new StringBuilder("the model bundle ")
                .append(directory)
                .append(problems.size() == 1 ? " has a problem: " : " has " + problems.size() + " problems: ");
        for (int i = 0; i < problems.size(); i++) {
            msg.append(i == 0 ? "" : "; ").append(problems.get(i));
        }
        throw new ModelLoadException(msg.toString());
    }
}
