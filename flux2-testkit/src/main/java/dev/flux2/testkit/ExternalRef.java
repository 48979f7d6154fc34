package dev.flux2.testkit;

/**
 * Where one initializer's bytes live in an external-data shard (ONNX {@code external_data} entries).
 *
 * @param location shard file name, relative to the graph file
 * @param offset byte offset in the shard
 * @param length byte length
 */
public record ExternalRef(String location, long offset, long length) {}
