package dev.flux2.examples.download;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.examples.download.KnownBundles.KnownBundle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped pin list, BLAKE3 itself and the download URL scheme. */
class KnownBundlesTest {
    @Test
    void shippedListPinsTheDefaultBundle() {
        KnownBundles shipped = KnownBundles.shipped();
        KnownBundle q4 = shipped.find(DownloadOptions.DEFAULT_REPO, DownloadOptions.DEFAULT_REVISION)
                .orElseThrow();
        assertEquals(18, q4.files().size());
        // docs/bundle-format.md §6: the pinned files total 5,225,022,190 bytes.
        assertEquals(
                5_225_022_190L,
                q4.files().values().stream()
                        .mapToLong(KnownBundles.KnownFile::bytes)
                        .sum());
        assertTrue(shipped.find(DownloadOptions.DEFAULT_REPO, "main").isEmpty(), "only the pinned commit matches");
    }

    @Test
    void blake3MatchesPublishedTestVectors(@TempDir Path tmp) throws IOException {
        // Digests from the BLAKE3 specification's reference implementation (b3sum).
        Path empty = Files.write(tmp.resolve("empty"), new byte[0]);
        assertEquals("af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262", Blake3Files.hexDigest(empty));
        Path abc = Files.write(tmp.resolve("abc"), "abc".getBytes(StandardCharsets.US_ASCII));
        assertEquals("6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85", Blake3Files.hexDigest(abc));
    }

    @Test
    void defaultsArePinnedAndUrlsFollowTheResolveScheme(@TempDir Path tmp) {
        DownloadOptions defaults = DownloadOptions.builder(tmp)
                .endpoint(java.net.URI.create("https://hub.example/"))
                .build();
        assertEquals(DownloadOptions.DEFAULT_REPO, defaults.repo());
        assertEquals(DownloadOptions.DEFAULT_REVISION, defaults.revision());
        assertEquals(
                "https://hub.example/MarkShark2/flux2-klein-4b-onnx-webgpu-q4/resolve/"
                        + DownloadOptions.DEFAULT_REVISION + "/tokenizer/tokenizer.json",
                defaults.resolveUrl("tokenizer/tokenizer.json").toString());
        DownloadOptions other = DownloadOptions.builder(tmp)
                .endpoint(java.net.URI.create("http://127.0.0.1:1"))
                .repo("someone/other-bundle")
                .build();
        assertEquals("main", other.revision());
        assertEquals(
                "http://127.0.0.1:1/someone/other-bundle/resolve/main/a%20b.json",
                other.resolveUrl("a b.json").toString());
    }
}
