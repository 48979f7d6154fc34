package dev.flux2.tokenizer;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remembers which {@code tokenizer.json} contents passed {@link TokenizerDefinition}'s checks, by SHA-256 of the
 * exact bytes, so that a repeated load of the same tokenizer (every one-shot {@code flux2 generate}) skips the
 * streaming pass over its 11 MB. One empty marker file per checked content, named by the hash and
 * {@link TokenizerDefinition#RULES_VERSION}: a changed file has another hash and is checked again, and changed rules
 * make every old marker count for nothing. Only a check that passed leaves a marker; a refused file is refused again
 * on every load.
 *
 * <p>The folder is trusted as the user's own cache: whoever can write a marker into it could let a hostile
 * tokenizer skip the check. It is created owner-only where the file system has POSIX permissions. A folder that
 * cannot be created or written costs only the saving: the check then runs on every load.
 */
final class CheckedTokenizers {
    private static final Logger LOG = LoggerFactory.getLogger(CheckedTokenizers.class);

    /** System property naming the folder, or {@code off} to check on every load. */
    static final String FOLDER_PROPERTY = "flux2.tokenizer.checkCache";

    private final Optional<Path> folder;

    private CheckedTokenizers(Optional<Path> folder) {
        this.folder = folder;
    }

    /**
     * @param folder where the markers live
     * @return a store in that folder
     */
    static CheckedTokenizers in(Path folder) {
        return new CheckedTokenizers(Optional.of(folder));
    }

    /** @return a store that remembers nothing: every load checks */
    static CheckedTokenizers none() {
        return new CheckedTokenizers(Optional.empty());
    }

    /**
     * @return the system property {@value #FOLDER_PROPERTY} ({@code off}: none), else
     *     {@code $FLUX2_CACHE_DIR/tokenizer-checks}, else {@code $XDG_CACHE_HOME/flux2-java/tokenizer-checks}, else
     *     {@code ~/.cache/flux2-java/tokenizer-checks} (the cache folder of the derived CPU graphs)
     */
    static CheckedTokenizers defaultStore() {
        String property = System.getProperty(FOLDER_PROPERTY);
        if (property != null && !property.isBlank()) {
            return property.equals("off") ? none() : in(Path.of(property));
        }
        String flux2 = System.getenv("FLUX2_CACHE_DIR");
        if (flux2 != null && !flux2.isBlank()) {
            return in(Path.of(flux2, "tokenizer-checks"));
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return in(base.resolve("flux2-java").resolve("tokenizer-checks"));
    }

    /**
     * @param content the exact bytes that will be given to the native tokenizer
     * @return their SHA-256, in lower-case hex
     */
    static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * @param sha256 the content's hash
     * @return whether that content passed the current rules' check before (a regular file, not a link, marks it)
     */
    boolean isChecked(String sha256) {
        return folder.map(f -> Files.isRegularFile(marker(f, sha256), LinkOption.NOFOLLOW_LINKS))
                .orElse(false);
    }

    /**
     * Records that the content passed the check; a failure to write is logged at DEBUG and otherwise ignored.
     *
     * @param sha256 the content's hash
     */
    void markChecked(String sha256) {
        if (folder.isEmpty()) {
            return;
        }
        Path f = folder.get();
        try {
            if (!Files.isDirectory(f)) {
                createOwnerOnly(f);
            }
            Files.createFile(marker(f, sha256));
        } catch (FileAlreadyExistsException e) {
            // Another process checked the same content at the same time.
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            LOG.debug("Cannot remember the checked tokenizer {} in {}: {}; it is checked on every load", sha256, f, e);
        }
    }

    private static void createOwnerOnly(Path f) throws IOException {
        Path parent = f.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try {
            if (f.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                Files.createDirectory(
                        f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } else {
                Files.createDirectory(f);
            }
        } catch (FileAlreadyExistsException e) {
            // Created by another process meanwhile (or a file of that name, which createFile then reports).
        }
    }

    private static Path marker(Path folder, String sha256) {
        return folder.resolve(sha256 + ".rules-" + TokenizerDefinition.RULES_VERSION);
    }

    @Override
    public String toString() {
        return "CheckedTokenizers[" + folder.map(Path::toString).orElse("off") + "]";
    }
}
