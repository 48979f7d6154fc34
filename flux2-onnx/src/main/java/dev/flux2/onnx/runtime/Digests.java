package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;

/** SHA-512 of files, as hex (the pins) and as npm's integrity string. Stateless. */
final class Digests {
    private Digests() {}

    /** @return the file's SHA-512 */
    static byte[] sha512(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-512", e);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return md.digest();
    }

    /** @return the file's SHA-512 as lower-case hex */
    static String sha512Hex(Path file) throws IOException {
        return HexFormat.of().formatHex(sha512(file));
    }

    /** @return the file's npm integrity string, {@code sha512-<base64>} */
    static String integrity(Path file) throws IOException {
        return "sha512-" + Base64.getEncoder().encodeToString(sha512(file));
    }
}
