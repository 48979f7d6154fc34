package dev.flux2.testkit;

import ai.onnx.proto.OnnxMl.ModelProto;

/**
 * One written graph: its model (for node counts in the config), file size and external-data shard sizes.
 *
 * @param model the model written
 * @param onnxBytes size of the .onnx file
 * @param shardBytes sizes of its shards in manifest order (empty for inline graphs)
 */
record GraphFile(ModelProto model, long onnxBytes, long[] shardBytes) {

    long totalShardBytes() {
        long sum = 0;
        for (long s : shardBytes) {
            sum += s;
        }
        return sum;
    }

    long largestShardBytes() {
        long max = 0;
        for (long s : shardBytes) {
            max = Math.max(max, s);
        }
        return max;
    }

    int countNodes(String opType) {
        int n = 0;
        for (var node : model.getGraph().getNodeList()) {
            if (node.getOpType().equals(opType)) {
                n++;
            }
        }
        return n;
    }
}
