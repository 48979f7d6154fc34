package dev.flux2.examples.download;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.codec.binary.Hex;
import org.apache.commons.codec.digest.Blake3;

/** BLAKE3-256 digests of files, streamed (bundle shards are up to 2 GB). */
public final class Blake3Files {
    private static final int BUFFER = 1 << 20;

    private Blake3Files() {}

    /**
     * @param file the file
     * @return its BLAKE3-256 digest as lower-case hex
     * @throws IOException when it cannot be read
     */
    public static String hexDigest(Path file) throws IOException {
        Blake3 hasher = Blake3.initHash();
        byte[] buf = new byte[BUFFER];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                hasher.update(buf, 0, n);
            }
        }
        return Hex.encodeHexString(hasher.doFinalize(32));
    }
}
