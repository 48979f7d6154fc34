package dev.flux2.testkit.timing;

import java.nio.file.Path;
import java.util.List;

/**
 * A written timing transformer graph.
 *
 * @param graphFile the {@code .onnx} file (under the real transformer file name)
 * @param shardFiles its two external-data shards in manifest order
 * @param shardBytes size of each shard
 * @param matMulNBitsNodes number of MatMulNBits nodes (linear layers)
 * @param weightBytes bytes of all MatMulNBits initializers (codes, scales, zero points; without alignment)
 * @param spec what was written
 */
public record TimingTransformerFiles(
        Path graphFile,
        List<Path> shardFiles,
        List<Long> shardBytes,
        int matMulNBitsNodes,
        long weightBytes,
        TimingTransformerSpec spec) {
    /** Copies the lists. */
    public TimingTransformerFiles {
        shardFiles = List.copyOf(shardFiles);
        shardBytes = List.copyOf(shardBytes);
    }

    /** @return the sum of the shard sizes */
    public long totalShardBytes() {
        return shardBytes.stream().mapToLong(Long::longValue).sum();
    }

    /** @return the largest shard size */
    public long largestShardBytes() {
        return shardBytes.stream().mapToLong(Long::longValue).max().orElse(0);
    }
}
