package dev.flux2.onnx.tensor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * Reuses the direct, native-order buffers behind {@link TensorBuffer}s across stage calls and generations.
 *
 * <p>Why: closing a buffer-backed tensor frees only ONNX Runtime's wrapper; the direct memory goes back to the OS when
 * a garbage collection finds the buffer unreachable (docs/design-notes.md §7). The tensors of one generation (the text
 * context, the latent input and prediction, the VAE stages' inputs, attention chunks and conversions) live for seconds
 * or minutes, so they reach the old generation and pile up between collections: without the pool the JVM's direct
 * memory grew with every generation until a collection ran (docs/performance.md). Released buffers are kept here
 * instead and handed out again for the same byte size, so a steady stream of generations at one size reuses the same
 * native memory.
 *
 * <p>The pool keeps at most {@link #maxPooledBytes()} of released buffers; beyond that the oldest are dropped (the
 * garbage collector frees them as before). A reused buffer is zero-filled before it is handed out, as a freshly
 * allocated one is. Thread-safe.
 */
public final class DirectBufferPool {
    /** What a backend keeps by default: the tensors of a 1024² generation with a few reference images. */
    public static final long DEFAULT_MAX_POOLED_BYTES = 128L << 20;

    private static final DirectBufferPool UNPOOLED = new DirectBufferPool(0);
    private static final byte[] ZEROS = new byte[64 << 10];

    private final long maxPooledBytes;
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private long pooledBytes;
    private long reused;
    private long allocated;

    /** @param maxPooledBytes the most released bytes to keep (0 keeps none) */
    public DirectBufferPool(long maxPooledBytes) {
        if (maxPooledBytes < 0) {
            throw new IllegalArgumentException("maxPooledBytes must be >= 0, got " + maxPooledBytes);
        }
        this.maxPooledBytes = maxPooledBytes;
    }

    /** @return a pool that keeps nothing: every buffer is newly allocated and left to the garbage collector */
    static DirectBufferPool unpooled() {
        return UNPOOLED;
    }

    /**
     * @param bytes the capacity wanted
     * @return a zero-filled, native-order direct buffer of exactly {@code bytes} capacity; give it back with
     *     {@link #release} once nothing reads or writes it any more
     */
    public ByteBuffer acquire(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        ByteBuffer buffer = take(bytes);
        if (buffer == null) {
            return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        }
        buffer.clear();
        zero(buffer);
        return buffer;
    }

    private synchronized ByteBuffer take(int bytes) {
        for (Iterator<ByteBuffer> it = free.iterator(); it.hasNext(); ) {
            ByteBuffer b = it.next();
            if (b.capacity() == bytes) {
                it.remove();
                pooledBytes -= bytes;
                reused++;
                return b;
            }
        }
        allocated++;
        return null;
    }

    /**
     * Takes a buffer back. The caller must hold no view of it any more: the next {@link #acquire} of the same size
     * hands the same memory to someone else.
     *
     * @param buffer a buffer from {@link #acquire}
     */
    public synchronized void release(ByteBuffer buffer) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("only direct buffers are pooled");
        }
        if (buffer.capacity() > maxPooledBytes) {
            return;
        }
        free.addLast(buffer);
        pooledBytes += buffer.capacity();
        while (pooledBytes > maxPooledBytes) {
            pooledBytes -= free.removeFirst().capacity();
        }
    }

    /** @return the most released bytes this pool keeps */
    long maxPooledBytes() {
        return maxPooledBytes;
    }

    /** @return the bytes of released buffers held now */
    public synchronized long pooledBytes() {
        return pooledBytes;
    }

    /** @return how many {@link #acquire} calls were served from released buffers */
    public synchronized long reusedCount() {
        return reused;
    }

    /** @return how many {@link #acquire} calls allocated a new buffer */
    public synchronized long allocatedCount() {
        return allocated;
    }

    private static void zero(ByteBuffer buffer) {
        zero(buffer, 0, buffer.capacity());
    }

    /**
     * Zero-fills a byte range of a buffer in bulk, without moving the buffer's own position or limit.
     *
     * @param buffer the buffer
     * @param fromByte first byte
     * @param byteCount number of bytes
     */
    static void zero(ByteBuffer buffer, int fromByte, int byteCount) {
        ByteBuffer b = buffer.duplicate();
        b.clear().position(fromByte).limit(fromByte + byteCount);
        while (b.hasRemaining()) {
            b.put(ZEROS, 0, Math.min(ZEROS.length, b.remaining()));
        }
    }
}
