package dev.flux2.hub;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.commons.codec.digest.Blake3;

/**
 * The digests that identify a hub file, computed in one pass over it. The hub's ETag of a file is "its git-sha1 if
 * stored in git, or its sha256 if stored in git-lfs" ({@code file_download.hf_hub_url}): a 64-hex ETag is checked
 * with SHA-256, a 40-hex one with the git blob SHA-1 ({@code sha1("blob " + size + "\0" + content)}). BLAKE3 is
 * added for files of a pinned bundle ({@link KnownBundles}).
 */
final class Digests {
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}"); // file_download.REGEX_SHA256
    private static final Pattern GIT_SHA1 = Pattern.compile("[0-9a-f]{40}");
    private static final int BUFFER = 1 << 20;

    /** What an ETag says about the content. */
    enum Kind {
        /** LFS file: the ETag is the content's SHA-256. */
        SHA256,
        /** Regular git file: the ETag is the git blob SHA-1. */
        GIT_SHA1,
        /** Anything else: only the size can be checked. */
        NONE
    }

    /**
     * The result of hashing one file.
     *
     * @param size bytes read
     * @param etagDigest the digest of the kind the ETag implies (empty for {@link Kind#NONE})
     * @param blake3 the BLAKE3-256 digest, when asked for
     */
    record Result(long size, Optional<String> etagDigest, Optional<String> blake3) {}

    private Digests() {}

    /**
     * @param etag a normalised ETag
     * @return what kind of digest it is
     */
    static Kind kindOf(String etag) {
        if (SHA256.matcher(etag).matches()) {
            return Kind.SHA256;
        }
        return GIT_SHA1.matcher(etag).matches() ? Kind.GIT_SHA1 : Kind.NONE;
    }

    /**
     * @param kind the digest kind
     * @return its name in messages
     */
    static String label(Kind kind) {
        return switch (kind) {
            case SHA256 -> "sha256";
            case GIT_SHA1 -> "git-sha1";
            case NONE -> "none";
        };
    }

    /**
     * Hashes a file once.
     *
     * @param file the file
     * @param kind the ETag's kind
     * @param blake3 whether to compute BLAKE3 too
     * @return the digests
     * @throws IOException when it cannot be read
     */
    static Result hash(Path file, Kind kind, boolean blake3) throws IOException {
        long size = Files.size(file);
        MessageDigest md = switch (kind) {
            case SHA256 -> digest("SHA-256");
            case GIT_SHA1 -> digest("SHA-1");
            case NONE -> null;
        };
        if (kind == Kind.GIT_SHA1) {
            md.update(("blob " + size + "\0").getBytes(StandardCharsets.US_ASCII));
        }
        Blake3 b3 = blake3 ? Blake3.initHash() : null;
        long read = 0;
        byte[] buf = new byte[BUFFER];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                if (md != null) {
                    md.update(buf, 0, n);
                }
                if (b3 != null) {
                    b3.update(buf, 0, n);
                }
                read += n;
            }
        }
        HexFormat hex = HexFormat.of();
        return new Result(
                read,
                md == null ? Optional.empty() : Optional.of(hex.formatHex(md.digest())),
                b3 == null ? Optional.empty() : Optional.of(hex.formatHex(b3.doFinalize(32))));
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
    }
}
