package dev.flux2.onnx.derived;

import dev.flux2.onnx.passes.GraphPass;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Identifies a derived graph: SHA-256 over the source graph file's bytes, size and modification time, the name, size
 * and modification time of every external-data file it references, and the id, version and parameters of every
 * pass that makes it, in order ({@link GraphPass#key()}). Any change to the source (a re-download, another
 * revision) or to what a pass writes (its version) gives another fingerprint, so a stale derived graph is never
 * reused. Stateless.
 */
final class GraphFingerprint {
    private GraphFingerprint() {}

    /**
     * @param graphFile the source graph
     * @param externalFiles the external-data files it references, relative to its folder
     * @param passes the passes that make the derived graph, in the order they are applied
     * @return 64 hex digits
     * @throws IOException when a file cannot be read
     */
    static String of(Path graphFile, Iterable<String> externalFiles, List<GraphPass> passes) throws IOException {
        MessageDigest sha = sha256();
        update(
                sha,
                "flux2-derived "
                        + String.join(" ", passes.stream().map(GraphPass::key).toList()));
        update(
                sha,
                "graph " + Files.size(graphFile) + " "
                        + Files.getLastModifiedTime(graphFile).toMillis());
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(graphFile)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
        }
        Map<String, String> shards = new TreeMap<>();
        Path folder = graphFile.toAbsolutePath().getParent();
        for (String location : externalFiles) {
            Path f = folder.resolve(location);
            shards.put(
                    location, Files.size(f) + " " + Files.getLastModifiedTime(f).toMillis());
        }
        shards.forEach((k, v) -> update(sha, "shard " + k + " " + v));
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void update(MessageDigest sha, String text) {
        sha.update(text.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
