package dev.flux2.spi;

import dev.flux2.api.ModelLoadException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks and bounded reads of a model's small files (configs, manifests, tokenizer files) for backends, so that every
 * refusal names the file and the real cause: missing, a folder, a FIFO or device (a {@code /dev/zero} link), not
 * readable, larger than its limit, or the operating system's reason ("permission denied", "no space left on
 * device"). A FIFO is never opened (opening it would block until a writer comes) and a device is never read (it may
 * never end). Stateless.
 */
public final class ModelFiles {
    private ModelFiles() {}

    /**
     * What keeps a path from being a regular file, if anything.
     *
     * @param file the path
     * @return empty for a regular file (or a link to one); otherwise "does not exist", "is not a file but a folder", "is a
     *     dangling symbolic link" or "is a FIFO, socket or device, not a regular file" (with the link's target)
     */
    public static Optional<String> notRegular(Path file) {
        if (Files.isRegularFile(file)) {
            return Optional.empty();
        }
        String link = "";
        if (Files.isSymbolicLink(file)) {
            try {
                link = " (a symbolic link to " + Files.readSymbolicLink(file) + ")";
            } catch (IOException | UnsupportedOperationException e) {
                link = " (a symbolic link)";
            }
            if (!Files.exists(file)) {
                return Optional.of("is a dangling symbolic link" + link);
            }
        }
        if (Files.isDirectory(file)) {
            return Optional.of("is not a file but a folder" + link);
        }
        if (!Files.exists(file) && !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of("does not exist");
        }
        return Optional.of("is a FIFO, socket or device" + link + ", not a regular file");
    }

    /**
     * Requires a readable regular file of at most {@code maxBytes}.
     *
     * @param file the file
     * @param what its role for the message, e.g. {@code "bundle config flux2-config.json"}
     * @param maxBytes the largest size accepted
     * @return its size in bytes
     * @throws ModelLoadException naming the role, the file and the cause (with the limit when it is too large)
     */
    public static long requireRegularFile(Path file, String what, long maxBytes) {
        Optional<String> problem = notRegular(file);
        if (problem.isPresent()) {
            throw new ModelLoadException(what + " " + file + " " + problem.get());
        }
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw new ModelLoadException("cannot read " + what + " " + file + ": " + reason(e), e);
        }
        if (size > maxBytes) {
            throw new ModelLoadException(String.format(
                    Locale.ROOT,
                    "%s %s is %d bytes, more than the limit of %d bytes (%d MiB) for this file: not a valid %s",
                    what,
                    file,
                    size,
                    maxBytes,
                    maxBytes >> 20,
                    what));
        }
        if (!Files.isReadable(file)) {
            throw new ModelLoadException("cannot read " + what + " " + file + ": permission denied");
        }
        return size;
    }

    /**
     * Reads a small file whole, after {@link #requireRegularFile}; a file that grows past the limit while being
     * read is refused as well.
     *
     * @param file the file
     * @param what its role for the message
     * @param maxBytes the largest size accepted
     * @return the file's bytes
     * @throws ModelLoadException naming the role, the file and the cause
     */
    public static byte[] readBounded(Path file, String what, long maxBytes) {
        requireRegularFile(file, what, maxBytes);
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (bytes.length > maxBytes) {
                throw new ModelLoadException(
                        what + " " + file + " grew past the limit of " + maxBytes + " bytes while being read");
            }
            return bytes;
        } catch (IOException e) {
            throw new ModelLoadException("cannot read " + what + " " + file + ": " + reason(e), e);
        }
    }

    /**
     * The cause of an I/O failure in words, because a {@link FileSystemException}'s message is often only the path.
     *
     * @param e the failure
     * @return for example "permission denied", "no space left on device", "does not exist", or the exception's
     *     reason or message with its kind
     */
    public static String reason(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "does not exist";
        }
        if (e instanceof NotDirectoryException) {
            return "a part of the path is not a folder";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason().toLowerCase(Locale.ROOT);
        }
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("no space left")) {
            return "no space left on device (" + message + ")";
        }
        return message;
    }
}
