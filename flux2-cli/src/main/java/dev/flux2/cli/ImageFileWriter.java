package dev.flux2.cli;

import dev.flux2.api.GeneratedImage;
import dev.flux2.io.PngFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import javax.imageio.ImageIO;

/**
 * Writes a generated image in the format its extension names ({@link ImageFormat}), atomically: into a temporary
 * file in the same folder, then moved over the target, so a failure leaves no partial file. Every failure is an
 * {@link IOException} naming the file and the reason. Stateless and thread-safe.
 */
final class ImageFileWriter {
    private ImageFileWriter() {}

    /**
     * @param image the image and its metadata
     * @param file the target (replaced if it exists)
     * @param jpegQuality JPEG quality 0–1 (ignored for PNG)
     * @throws IOException naming the file and the reason
     */
    public static void write(GeneratedImage image, Path file, float jpegQuality) throws IOException {
        write(image, file, jpegQuality, ImageFileWriter::openNew);
    }

    /** Opens the temporary file (a test wraps the stream to fail as a full disk does). */
    interface Opener {
        OutputStream open(Path tmp) throws IOException;
    }

    static void write(GeneratedImage image, Path file, float jpegQuality, Opener opener) throws IOException {
        ImageFormat format = ImageFormat.of(file);
        writeAtomically(file, opener, out -> {
            if (format == ImageFormat.PNG) {
                PngFiles.write(image, out);
            } else {
                JpegMetadataWriter.write(image, jpegQuality, out);
            }
        });
    }

    /**
     * Writes a plain PNG (no metadata: a live preview), atomically.
     *
     * @param image the pixels
     * @param file the target (replaced if it exists)
     * @throws IOException naming the file and the reason
     */
    static void writePng(BufferedImage image, Path file) throws IOException {
        writeAtomically(file, ImageFileWriter::openNew, out -> {
            if (!ImageIO.write(image, "png", out)) {
                throw new IOException("no PNG writer");
            }
        });
    }

    /** What writes the bytes. */
    private interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    private static OutputStream openNew(Path tmp) throws IOException {
        return Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    private static void writeAtomically(Path file, Opener opener, Body body) throws IOException {
        Path absolute = file.toAbsolutePath();
        // Not Files.createTempFile: its owner-only permissions would survive the rename; this one follows the umask.
        Path tmp = absolute.resolveSibling("." + absolute.getFileName() + "." + System.nanoTime() + ".tmp");
        try {
            try (OutputStream out = opener.open(tmp)) {
                body.writeTo(out);
            }
            Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IOException("cannot write " + file + ": " + reason(e), e);
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // The temporary file's folder is what failed; nothing more to clean.
            }
        }
    }

    /**
     * @param e an I/O failure
     * @return a reason a person understands: the file-system reason, or the exception's kind and message; for a
     *     wrapped failure (ImageIO's "I/O error writing PNG file!") the reason of the innermost I/O failure in its
     *     cause chain, where the operating system's words are ("no space left on device")
     */
    public static String reason(IOException e) {
        IOException innermost = e;
        int depth = 0;
        for (Throwable t = e.getCause(); t != null && depth < 32; t = t.getCause(), depth++) {
            if (t instanceof IOException io) {
                innermost = io;
            }
        }
        return innermost == e ? own(e) : own(innermost);
    }

    private static String own(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        String m = e.getMessage();
        if (m != null && m.toLowerCase(java.util.Locale.ROOT).startsWith("no space left on device")) {
            return "no space left on device";
        }
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
