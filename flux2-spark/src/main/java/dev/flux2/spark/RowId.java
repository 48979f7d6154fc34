package dev.flux2.spark;

import dev.flux2.api.InvalidRequestException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/**
 * A request row's {@code id}, checked to be safe as a file name on every file system Hadoop reaches: 1 to
 * {@value #MAX_LENGTH} characters from {@code A-Z a-z 0-9 . _ -}, starting with a letter or a digit. So an id is
 * never a path ({@code /}, {@code ..}), never hidden from Hadoop and Spark (a leading {@code .} or {@code _}), and
 * its temporary file name stays under 255 bytes. Ids are compared exactly: on a case-insensitive file system (the
 * default on macOS and Windows) {@code A1} and {@code a1} would name the same file.
 *
 * @param value the id, as given
 */
public record RowId(String value) implements Serializable {
    /** Longest accepted id, in characters. */
    public static final int MAX_LENGTH = 128;

    private static final long serialVersionUID = 1L;
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    /**
     * Checks the id.
     *
     * @throws InvalidRequestException naming what is wrong with it
     */
    public RowId {
        if (value == null) {
            throw new InvalidRequestException("id must be set, found null");
        }
        if (value.isEmpty()
                || value.length() > MAX_LENGTH
                || !SAFE.matcher(value).matches()) {
            throw new InvalidRequestException("id must be 1 to " + MAX_LENGTH
                    + " characters from A-Z a-z 0-9 . _ - starting with a letter or digit, found "
                    + Values.quote(value));
        }
    }

    /** @return {@code <id>.png}, the image's file name */
    public String fileName() {
        return value + ".png";
    }

    /** @return the seed of a row without one: {@link #derivedSeed(String)} of this id */
    public long derivedSeed() {
        return derivedSeed(value);
    }

    /**
     * The seed of a row that has none, a stable function of its id: the first 4 bytes of SHA-256 of the id's UTF-8
     * bytes, read big-endian as an unsigned 32-bit value (so in [0, 2³²), like the CLI's random seeds). In Python:
     * {@code int.from_bytes(hashlib.sha256(id.encode()).digest()[:4], "big")}.
     *
     * @param id any string
     * @return the seed
     */
    public static long derivedSeed(String id) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
        return (digest[0] & 0xffL) << 24 | (digest[1] & 0xffL) << 16 | (digest[2] & 0xffL) << 8 | (digest[3] & 0xffL);
    }

    @Override
    public String toString() {
        return value;
    }
}
