package dev.flux2.onnx.bundle;

import java.util.Objects;
import java.util.Optional;

/**
 * One graph the backend runs: an entry of the config's {@code models} object, or a graph found by its signature
 * (then without declared names, sizes or settings), and what the config says about it.
 *
 * @param key the entry's key (for example {@code transformer})
 * @param file the graph file name, relative to the bundle folder; absolute for a part taken from another folder
 * @param manifest the external-data manifest (a JSON array of shard names, which sit beside it), if the weights are
 *     sharded; relative to the bundle folder, or absolute like {@code file}
 * @param names the declared tensor names
 * @param shards the promised sizes, if given
 * @param settings further optional settings
 */
public record ModelEntry(
        String key,
        String file,
        Optional<String> manifest,
        TensorNames names,
        Optional<ShardInfo> shards,
        GraphSettings settings) {

    /** Checks for nulls. */
    public ModelEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(manifest, "manifest");
        Objects.requireNonNull(names, "names");
        Objects.requireNonNull(shards, "shards");
        Objects.requireNonNull(settings, "settings");
    }
}
