package dev.flux2.onnx.config;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of the config's {@code models} object: a graph file and what the config says about it.
 *
 * @param key the entry's key (for example {@code transformer})
 * @param file the graph file name, relative to the bundle folder
 * @param manifest the external-data manifest (a JSON array of shard names), if the weights are sharded
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
