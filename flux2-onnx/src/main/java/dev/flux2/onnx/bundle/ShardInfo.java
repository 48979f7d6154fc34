package dev.flux2.onnx.bundle;

/**
 * The {@code shards} object of a model entry: what the download should weigh.
 *
 * @param count number of external-data shards (0 for a graph with inline weights)
 * @param totalBytes sum of the shard sizes
 * @param largestBytes size of the largest shard
 * @param onnxBytes size of the {@code .onnx} file itself, or -1 when the config does not give it
 */
record ShardInfo(int count, long totalBytes, long largestBytes, long onnxBytes) {

    /** Validates. */
    public ShardInfo {
        if (count < 0 || totalBytes < 0 || largestBytes < 0 || onnxBytes < -1) {
            throw new IllegalArgumentException("shard sizes must be non-negative: count=" + count + " total="
                    + totalBytes + " largest=" + largestBytes + " onnx=" + onnxBytes);
        }
    }
}
