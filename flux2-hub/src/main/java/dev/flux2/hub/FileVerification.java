package dev.flux2.hub;

import java.util.Objects;

/**
 * One file of a {@link VerificationReport}: what it must be and what it is.
 *
 * @param path the file's path in the model folder
 * @param status the verdict
 * @param expectedBytes the size it must have, or -1 when nothing says
 * @param actualBytes its size, or -1 when missing
 * @param algorithm the digest compared: {@code sha256} or {@code git-sha1} (from the hub's ETag), {@code BLAKE3}
 *     (the pinned list; both are compared for pinned files and the first that differs is reported), or
 *     {@code none}
 * @param expectedDigest the digest it must have, or null
 * @param actualDigest its digest, or null when not computed
 */
public record FileVerification(
        String path,
        Status status,
        long expectedBytes,
        long actualBytes,
        String algorithm,
        String expectedDigest,
        String actualDigest) {

    /** A file's verdict. */
    public enum Status {
        /** Size and every known digest match. */
        OK,
        /** The size or a digest differs. */
        MISMATCH,
        /** The file is not there. */
        MISSING,
        /** Nothing records what the file must be (no ETag, not pinned); only its presence is known. */
        UNVERIFIABLE
    }

    /** Checks for nulls. */
    public FileVerification {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(algorithm, "algorithm");
    }

    /** @return one line: path, verdict, expected and actual values */
    public String describe() {
        return switch (status) {
            case OK -> path + ": ok (" + actualBytes + " bytes, " + algorithm + " " + actualDigest + ")";
            case MISSING -> path + ": missing (expected " + expectedBytes + " bytes)";
            case UNVERIFIABLE -> path + ": present (" + actualBytes + " bytes), nothing to verify it against";
            case MISMATCH ->
                expectedBytes >= 0 && expectedBytes != actualBytes
                        ? path + ": size: expected " + expectedBytes + " bytes, found " + actualBytes
                        : path + ": " + algorithm + ": expected " + expectedDigest + ", found " + actualDigest;
        };
    }
}
