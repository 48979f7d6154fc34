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

    /** @return {@code <directory>/flux2-config.json} (written for the MarkShark2 layout only) */
    public Path configFile() {
        return directory.resolve(ConfigWriter.CONFIG_FILE);
    }

    /** @return the tokenizer folder: {@code <directory>/tokenizer}, or the bundle folder when beside the graphs */
    public Path tokenizerDirectory() {
        return spec.has(BundleVariant.TOKENIZER_BESIDE_GRAPHS)
                ? directory
                : directory.resolve(SyntheticBundleWriter.TOKENIZER_DIR);
    }

    /**
     * @param graphKey config key
     * @return the graph file
     */
    public Path graphFile(String graphKey) {
        return directory.resolve(spec.fileName(BundleGraph.fromKey(graphKey)));
    }

    /**
     * @param graphKey config key
     * @return the manifest file, for the text encoder and transformer graphs of the MarkShark2 layout
     */
    public Optional<Path> manifestFile(String graphKey) {
        return spec.layout() == ExportLayout.MARKSHARK2
                ? BundleGraph.fromKey(graphKey).manifestName().map(directory::resolve)
                : Optional.empty();
    }

    /**
     * @param graphKey config key
     * @return the external-data files in manifest order (empty for inline graphs)
     */
    public List<Path> shardFiles(String graphKey) {
        List<Path> paths = new ArrayList<>();
        for (String name : spec.shardNames(BundleGraph.fromKey(graphKey))) {
            paths.add(directory.resolve(name));
        }
        return List.copyOf(paths);
    }

    /**
     * Copies one graph with its external-data files (not its manifest) into another folder, as a part to take from
     * there: a transformer-only folder such as danyalmalik's, or a graph file to compose with.
     *
     * @param graphKey config key
     * @param target the folder (created if needed)
     * @return the copied graph file
     * @throws java.io.UncheckedIOException when a file cannot be copied
     */
    public Path copyGraph(String graphKey, Path target) {
        try {
            java.nio.file.Files.createDirectories(target);
            Path graph = graphFile(graphKey);
            java.nio.file.Files.copy(
                    graph, target.resolve(graph.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            for (Path shard : shardFiles(graphKey)) {
                if (java.nio.file.Files.exists(shard)) {
                    java.nio.file.Files.copy(
                            shard,
                            target.resolve(shard.getFileName()),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return target.resolve(graph.getFileName());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot copy graph " + graphKey + " to " + target, e);
        }
    }
}
