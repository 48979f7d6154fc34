package dev.flux2.hub;

import dev.flux2.hub.KnownBundles.KnownFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Hashes a file once and compares it with what it must be: the size, the digest its ETag names (SHA-256 for LFS
 * files, the git blob SHA-1 otherwise, see {@link Digests}) and, for a pinned file, the shipped BLAKE3.
 */
final class ContentCheck {
    private ContentCheck() {}

    /**
     * One value that differs.
     *
     * @param what {@code size}, {@code sha256}, {@code git-sha1} or {@code BLAKE3}
     * @param expected the expected value
     * @param actual the value found
     */
    record Mismatch(String what, String expected, String actual) {
        @Override
        public String toString() {
            return what.equals("size")
                    ? "size: expected " + expected + " bytes, found " + actual
                    : what + ": expected " + expected + ", found " + actual;
        }
    }

    /**
     * The result of a check.
     *
     * @param digests what was computed
     * @param mismatches every value that differs (empty: the file is what it must be)
     */
    record Outcome(Digests.Result digests, List<Mismatch> mismatches) {
        Outcome {
            mismatches = List.copyOf(mismatches);
        }

        boolean ok() {
            return mismatches.isEmpty();
        }

        /** @return the mismatches, joined for a message */
        String describe() {
            return String.join("; ", mismatches.stream().map(Mismatch::toString).toList());
        }

        /** @return the BLAKE3 digest, when computed */
        String blake3() {
            return digests.blake3().orElse(null);
        }
    }

    /**
     * @param file the file (symbolic links followed)
     * @param size the expected size
     * @param etag the expected ETag
     * @param pinned the pinned size and BLAKE3, or null
     * @return what differs
     * @throws IOException when the file cannot be read
     */
    static Outcome check(Path file, long size, String etag, KnownFile pinned) throws IOException {
        Digests.Kind kind = Digests.kindOf(etag.toLowerCase(Locale.ROOT));
        Digests.Result r = Digests.hash(file, kind, pinned != null);
        List<Mismatch> m = new ArrayList<>();
        if (size >= 0 && r.size() != size) {
            m.add(new Mismatch("size", Long.toString(size), Long.toString(r.size())));
        }
        if (pinned != null && r.size() != pinned.bytes() && pinned.bytes() != size) {
            m.add(new Mismatch("size", Long.toString(pinned.bytes()), Long.toString(r.size())));
        }
        r.etagDigest()
                .filter(d -> !d.equalsIgnoreCase(etag))
                .ifPresent(d -> m.add(new Mismatch(Digests.label(kind), etag.toLowerCase(Locale.ROOT), d)));
        if (pinned != null && r.blake3().isPresent() && !r.blake3().get().equals(pinned.blake3())) {
            m.add(new Mismatch("BLAKE3", pinned.blake3(), r.blake3().get()));
        }
        return new Outcome(r, m);
    }
}
