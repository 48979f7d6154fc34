package dev.flux2.hub;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;

/**
 * Remembers that a file was hashed in full and matched: its ETag, size, modification time and (for pinned files)
 * BLAKE3. While size and modification time are unchanged the file is trusted without hashing again (hashing
 * 5 GB on every start is too slow); {@code verify} hashes again regardless.
 *
 * <p>In the hub cache the record sits beside the lock file, under {@code {cache}/.locks/}, which
 * {@code huggingface_hub}'s cache scan skips ({@code utils/_cache_manager.scan_cache_dir}) and its cache deletion
 * leaves alone; in a plain folder it sits under {@code .cache/huggingface/download/}.
 *
 * @param etag the ETag the content matched
 * @param size the size when hashed
 * @param mtimeMillis the modification time when hashed
 * @param blake3 the BLAKE3-256 digest, or null when not computed
 */
record VerifiedRecord(String etag, long size, long mtimeMillis, String blake3) {

    /**
     * @param recordFile where the record is
     * @return the record, if present and readable
     */
    static Optional<VerifiedRecord> read(Path recordFile) {
        if (!Files.isRegularFile(recordFile)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(recordFile, StandardCharsets.UTF_8)) {
            p.load(in);
            return Optional.of(new VerifiedRecord(
                    p.getProperty("etag", ""),
                    Long.parseLong(p.getProperty("size", "-1")),
                    Long.parseLong(p.getProperty("mtime", "-1")),
                    p.getProperty("blake3")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * @param file the verified file (symbolic links followed)
     * @param etag the ETag it matched
     * @param blake3 its BLAKE3 digest, or null
     * @return the record of its current size and modification time
     * @throws IOException when the file cannot be read
     */
    static VerifiedRecord of(Path file, String etag, String blake3) throws IOException {
        return new VerifiedRecord(
                etag, Files.size(file), Files.getLastModifiedTime(file).toMillis(), blake3);
    }

    /**
     * @param file the file now
     * @param expectedEtag the ETag it must have matched
     * @param expectedBlake3 the BLAKE3 it must have matched, or null when not required
     * @return whether this record vouches for the file as it is now
     */
    boolean vouchesFor(Path file, String expectedEtag, String expectedBlake3) {
        try {
            return etag.equals(expectedEtag)
                    && Files.isRegularFile(file)
                    && Files.size(file) == size
                    && Files.getLastModifiedTime(file).toMillis() == mtimeMillis
                    && (expectedBlake3 == null || expectedBlake3.equals(blake3));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Writes the record atomically.
     *
     * @param recordFile where
     * @throws IOException when it cannot be written
     */
    void write(Path recordFile) throws IOException {
        Files.createDirectories(recordFile.getParent());
        StringBuilder sb = new StringBuilder("# flux2-java: content hashed in full and matched\n");
        sb.append("etag=").append(etag).append('\n');
        sb.append("size=").append(size).append('\n');
        sb.append("mtime=").append(mtimeMillis).append('\n');
        if (blake3 != null) {
            sb.append("blake3=").append(blake3).append('\n');
        }
        Path tmp = recordFile.resolveSibling(recordFile.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.writeString(tmp, sb, StandardCharsets.UTF_8);
        Files.move(tmp, recordFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * @param recordFile the record to remove
     */
    static void delete(Path recordFile) {
        try {
            Files.deleteIfExists(recordFile);
        } catch (IOException e) {
            // A stale record cannot vouch for a changed file (size/mtime differ); removal is a courtesy.
        }
    }

    static boolean exists(Path p) {
        return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
    }
}
