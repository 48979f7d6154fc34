package dev.flux2.examples.download;

import dev.flux2.examples.bundle.BundleConfigFile.GraphFile;
import dev.flux2.examples.bundle.BundleConfigFile.ShardFacts;
import java.util.List;

/**
 * Checks a graph's downloaded files against what its config entry promises: the number of external-data shards,
 * their total and largest size, or the size of an inline graph file.
 */
final class ShardSetCheck {
    private ShardSetCheck() {}

    /**
     * @param graph the config entry
     * @param shardSizes the sizes of the shards the manifest lists, in manifest order
     * @param manifest the manifest file name, for messages
     * @throws DownloadException naming the graph, the manifest and the expected versus actual value
     */
    static void checkShards(GraphFile graph, List<Long> shardSizes, String manifest) {
        ShardFacts facts = graph.shards();
        String what = "graph '" + graph.key() + "' (" + graph.file() + ", shards listed in " + manifest + ")";
        if (facts.count() >= 0 && facts.count() != shardSizes.size()) {
            throw new DownloadException(what + ": flux2-config.json promises " + facts.count()
                    + " shards, the manifest lists " + shardSizes.size());
        }
        long total = shardSizes.stream().mapToLong(Long::longValue).sum();
        if (facts.totalBytes() >= 0 && facts.totalBytes() != total) {
            throw new DownloadException(what + ": shards total " + total + " bytes, flux2-config.json expects "
                    + "total_bytes " + facts.totalBytes());
        }
        long largest = shardSizes.stream().mapToLong(Long::longValue).max().orElse(0);
        if (facts.largestBytes() >= 0 && facts.largestBytes() != largest) {
            throw new DownloadException(what + ": largest shard has " + largest + " bytes, flux2-config.json "
                    + "expects largest_bytes " + facts.largestBytes());
        }
    }

    /**
     * @param graph the config entry of a graph without external data
     * @param size the graph file's size
     * @throws DownloadException when the config gives {@code onnx_bytes} and the size differs
     */
    static void checkInline(GraphFile graph, long size) {
        long expected = graph.shards().onnxBytes();
        if (graph.manifest().isEmpty() && expected > 0 && expected != size) {
            throw new DownloadException("graph '" + graph.key() + "' (" + graph.file() + ") has " + size
                    + " bytes, flux2-config.json expects onnx_bytes " + expected);
        }
    }
}
