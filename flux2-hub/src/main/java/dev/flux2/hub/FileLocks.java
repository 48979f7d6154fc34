package dev.flux2.hub;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Exclusive locks on lock files ({@code {cache}/.locks/models--{owner}--{name}/{etag}.lock}, the file
 * {@code huggingface_hub} locks around a blob's download), between processes ({@link FileChannel#lock()}) and
 * between threads of this JVM (a {@link ReentrantLock} per file: file locks are held per process, and a second
 * {@code lock()} on the same file from this JVM would throw).
 */
final class FileLocks {
    private static final ConcurrentMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

    /** Work done under a lock. */
    @FunctionalInterface
    interface Locked<T> {
        T run() throws IOException;
    }

    private FileLocks() {}

    /**
     * @param lockFile the lock file (created with its folders)
     * @param work what to do while holding it
     * @param <T> the result type
     * @return the work's result
     * @throws IOException when the lock file cannot be created or locked, or the work fails
     */
    static <T> T withLock(Path lockFile, Locked<T> work) throws IOException {
        Path key = lockFile.toAbsolutePath().normalize();
        ReentrantLock local = IN_JVM.computeIfAbsent(key, k -> new ReentrantLock());
        try {
            // Interruptible: a cancelled resolution must not wait for another thread's whole download.
            local.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for the lock on " + lockFile);
        }
        try {
            Files.createDirectories(key.getParent());
            try (FileChannel channel = FileChannel.open(key, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = channel.lock()) {
                return work.run();
            }
        } finally {
            local.unlock();
        }
    }
}
