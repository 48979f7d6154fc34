package dev.flux2.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Appends initializer bytes to external-data shard files, each tensor starting on a 64-byte boundary, and
 * streams large repeated patterns in 1 MiB chunks so padding never has to fit in the heap.
 */
public final class ExternalDataWriter implements Closeable {
    private static final int ALIGNMENT = 64;
    private static final int CHUNK = 1 << 20;

    private final List<String> names;
    private final List<FileChannel> channels = new ArrayList<>();
    private final long[] sizes;

    /**
     * Creates (truncating) the shard files.
     *
     * @param directory directory of the graph file
     * @param shardNames shard file names; index = shard number of {@link #append}
     */
    public ExternalDataWriter(Path directory, List<String> shardNames) {
        this.names = List.copyOf(shardNames);
        this.sizes = new long[names.size()];
        try {
            for (String name : names) {
                channels.add(FileChannel.open(
                        directory.resolve(name),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE));
            }
        } catch (IOException e) {
            closeQuietlyAfterFailure(e);
            throw new UncheckedIOException("cannot create external-data shards " + names + " in " + directory, e);
        }
    }

    /** Appends {@code bytes} to shard {@code shard} on a 64-byte boundary. @return where they were written */
    public ExternalRef append(int shard, byte[] bytes) {
        long offset = align(shard);
        write(shard, ByteBuffer.wrap(bytes));
        return new ExternalRef(names.get(shard), offset, bytes.length);
    }

    /** Appends {@code length} bytes repeating {@code pattern} (whose length must divide 1 MiB). */
    ExternalRef appendPattern(int shard, long length, byte[] pattern) {
        if (CHUNK % pattern.length != 0) {
            throw new IllegalArgumentException("pattern length " + pattern.length + " does not divide " + CHUNK);
        }
        long offset = align(shard);
        ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(length, pattern.length)));
        for (int i = 0; i < chunk.capacity(); i += pattern.length) {
            chunk.put(pattern, 0, Math.min(pattern.length, chunk.capacity() - i));
        }
        long remaining = length;
        while (remaining > 0) {
            int n = (int) Math.min(remaining, chunk.capacity());
            chunk.clear().limit(n);
            write(shard, chunk);
            remaining -= n;
        }
        return new ExternalRef(names.get(shard), offset, length);
    }

    /** @return the number of shard files */
    public int shardCount() {
        return names.size();
    }

    /** @return the current size of each shard in bytes */
    public long[] sizes() {
        return sizes.clone();
    }

    private long align(int shard) {
        long pad = (ALIGNMENT - sizes[shard] % ALIGNMENT) % ALIGNMENT;
        if (pad > 0) {
            write(shard, ByteBuffer.allocate((int) pad));
        }
        return sizes[shard];
    }

    private void write(int shard, ByteBuffer data) {
        try {
            FileChannel ch = channels.get(shard);
            while (data.hasRemaining()) {
                sizes[shard] += ch.write(data);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write external-data shard " + names.get(shard), e);
        }
    }

    /** Closes every shard file. */
    @Override
    public void close() {
        IOException first = null;
        for (FileChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw new UncheckedIOException("cannot close external-data shards " + names, first);
        }
    }

    private void closeQuietlyAfterFailure(IOException cause) {
        for (FileChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException e) {
                cause.addSuppressed(e);
            }
        }
    }
}
