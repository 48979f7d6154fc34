package dev.flux2.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A written synthetic bundle.
 *
 * @param directory the bundle directory (holds {@code flux2-config.json})
 * @param spec what was written
 */
public record SyntheticBundle(Path directory, SyntheticBundleSpec spec) {

    /** @return the independent pure-Java evaluation of this bundle's graphs */
    public SyntheticReference reference() {
        return new SyntheticReference(spec);
    }

    /** @return {@code <directory>/flux2-config.json} */
    public Path configFile() {
        return directory.resolve(ConfigWriter.CONFIG_FILE);
    }

    /** @return {@code <directory>/tokenizer} */
    public Path tokenizerDirectory() {
        return directory.resolve(SyntheticBundleWriter.TOKENIZER_DIR);
    }

    /**
     * @param graphKey config key
     * @return the graph file
     */
    public Path graphFile(String graphKey) {
        return directory.resolve(BundleGraph.fromKey(graphKey).fileName());
    }

    /**
     * @param graphKey config key
     * @return the manifest file, for the text encoder and transformer graphs
     */
    public Optional<Path> manifestFile(String graphKey) {
        return BundleGraph.fromKey(graphKey).manifestName().map(directory::resolve);
    }

    /**
     * @param graphKey config key
     * @return the external-data shard files in manifest order (empty for inline graphs)
     */
    public List<Path> shardFiles(String graphKey) {
        List<Path> paths = new ArrayList<>();
        for (String name : BundleGraph.fromKey(graphKey).shardNames()) {
            paths.add(directory.resolve(name));
        }
        return List.copyOf(paths);
    }
}
