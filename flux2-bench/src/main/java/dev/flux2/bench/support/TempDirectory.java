package dev.flux2.bench.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A temporary directory deleted with its contents on {@link #close()} (synthetic bundles can be gigabytes).
 */
public final class TempDirectory implements AutoCloseable {
    private final Path path;
    private boolean closed;

    private TempDirectory(Path path) {
        this.path = path;
    }

    /**
     * @param prefix directory name prefix
     * @return a new empty directory under {@code java.io.tmpdir}
     */
    public static TempDirectory create(String prefix) {
        try {
            return new TempDirectory(Files.createTempDirectory(prefix));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory '" + prefix + "…'", e);
        }
    }

    /** @return the directory */
    public Path path() {
        return path;
    }

    /** Deletes the directory tree. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Files.walkFileTree(path, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                    if (exc != null) {
                        throw exc;
                    }
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete temporary directory " + path, e);
        }
    }
}
