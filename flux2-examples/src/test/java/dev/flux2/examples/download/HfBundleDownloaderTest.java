package dev.flux2.examples.download;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.examples.download.DownloadedFile.Outcome;
import dev.flux2.examples.testing.LoopbackHubServer;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The downloader against a loopback hub (redirects, Range, injected faults); no test touches the network. */
class HfBundleDownloaderTest {
    private static final String REPO = "tester/tiny-bundle";
    private static final String REV = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path tmp;

    private Path repoDir() throws IOException {
        Path repo = tmp.resolve("repo");
        if (!Files.exists(repo)) {
            TinyHubRepo.write(repo, c -> {});
        }
        return repo;
    }

    private DownloadOptions.Builder options(LoopbackHubServer hub, Path target) {
        return DownloadOptions.builder(target)
                .endpoint(hub.endpoint())
                .repo(REPO)
                .revision(REV)
                .retries(0)
                .stallTimeout(Duration.ofSeconds(10));
    }

    private static DownloadReport download(DownloadOptions options) {
        return new HfBundleDownloader(options, KnownBundles.none(), DownloadListener.NONE).download();
    }

    private static void assertSameFiles(Path expected, Path actual) throws IOException {
        List<String> files = TinyHubRepo.files(expected);
        assertEquals(files, TinyHubRepo.files(actual), "downloaded file list");
        for (String f : files) {
            assertArrayEquals(Files.readAllBytes(expected.resolve(f)), Files.readAllBytes(actual.resolve(f)), f);
        }
    }

    @Test
    void downloadsEveryFileThroughTheCdnRedirect() throws IOException {
        Path repo = repoDir();
        Path target = tmp.resolve("bundle");
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadReport report = download(options(hub, target).build());

            assertSameFiles(repo, target);
            Map<String, Outcome> outcomes =
                    report.files().stream().collect(Collectors.toMap(DownloadedFile::path, DownloadedFile::outcome));
            assertEquals(Outcome.ABSENT_OPTIONAL, outcomes.get("tokenizer/chat_template.jinja"));
            assertEquals(Outcome.ABSENT_OPTIONAL, outcomes.get("tr-fused-4step.onnx"));
            assertEquals(Outcome.ABSENT_OPTIONAL, outcomes.get("vae-encoder.onnx"));
            assertEquals(Outcome.DOWNLOADED, outcomes.get(TinyHubRepo.TE_SHARD_2));
            assertEquals("flux2-config.json", report.files().get(0).path(), "the config comes first");
            assertFalse(report.hashVerified());
            // Every file went through /resolve/ first and was then served by the CDN path.
            assertTrue(hub.requests().stream()
                    .anyMatch(r -> r.path().equals("/" + REPO + "/resolve/" + REV + "/" + TinyHubRepo.TE_SHARD_1)));
            assertTrue(hub.requests().stream().anyMatch(r -> r.path().equals("/cdn/" + TinyHubRepo.TE_SHARD_1)));
            try (var s = Files.walk(target)) {
                assertTrue(s.noneMatch(p -> p.toString().endsWith(".part")), "no .part file left behind");
            }
        }
    }

    @Test
    void downloadsASyntheticBundleFileForFile() throws IOException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), tmp.resolve("synthetic"));
        Path target = tmp.resolve("bundle");
        try (LoopbackHubServer hub = new LoopbackHubServer(bundle.directory(), REPO, REV)) {
            DownloadReport report = download(options(hub, target).build());
            List<String> origin = TinyHubRepo.files(bundle.directory());
            List<String> downloaded = TinyHubRepo.files(target);
            for (String f : downloaded) {
                assertArrayEquals(
                        Files.readAllBytes(bundle.directory().resolve(f)), Files.readAllBytes(target.resolve(f)), f);
            }
            // Only what the bundle needs is fetched: the fixture's notes beside the tokenizer stay behind.
            List<String> notFetched =
                    origin.stream().filter(f -> !downloaded.contains(f)).toList();
            assertTrue(
                    notFetched.stream().allMatch(f -> f.startsWith("tokenizer/") && !f.endsWith(".json")),
                    notFetched.toString());
            assertEquals(origin.size() - notFetched.size(), downloaded.size());
            assertTrue(report.files().stream()
                    .anyMatch(f -> f.path().equals("tokenizer/tokenizer.json") && f.outcome() == Outcome.DOWNLOADED));
            for (Path shard : bundle.shardFiles("transformer")) {
                assertTrue(report.files().stream()
                        .anyMatch(f -> f.path().equals(shard.getFileName().toString())));
            }
        }
    }

    @Test
    void secondRunKeepsCompleteFiles() throws IOException {
        Path repo = repoDir();
        Path target = tmp.resolve("bundle");
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            download(options(hub, target).build());
            int before = hub.requests().size();
            DownloadReport again = download(options(hub, target).build());
            assertTrue(again.files().stream()
                    .filter(f -> f.outcome() != Outcome.ABSENT_OPTIONAL)
                    .allMatch(f -> f.outcome() == Outcome.ALREADY_PRESENT));
            assertEquals(0, again.transferredBytes());
            // Only the optional files that are absent are asked for again (the hub answers 404, after a redirect).
            assertTrue(hub.requests().subList(before, hub.requests().size()).stream()
                    .noneMatch(r -> r.path().endsWith(TinyHubRepo.TE_SHARD_1)));
        }
    }

    @Test
    void interruptedTransferResumesFromThePartFileOnTheNextRun() throws IOException {
        Path repo = repoDir();
        Path target = tmp.resolve("bundle");
        long cut = 100_000;
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            hub.cutOnceAfter(TinyHubRepo.TE_SHARD_1, cut);

            DownloadException first = assertThrows(
                    DownloadException.class, () -> download(options(hub, target).build()));
            assertTrue(first.getMessage().contains(TinyHubRepo.TE_SHARD_1), first.getMessage());
            assertTrue(first.getMessage().contains("resume"), first.getMessage());
            Path part = target.resolve(TinyHubRepo.TE_SHARD_1 + ".part");
            // Bytes still in flight when the server drops the connection may be lost, never more than were sent.
            long kept = Files.size(part);
            assertTrue(kept > 0 && kept <= cut, "bytes received before the cut are kept: " + kept);
            assertFalse(Files.exists(target.resolve(TinyHubRepo.TE_SHARD_1)), "no final file for a partial transfer");

            DownloadReport second = download(options(hub, target).build());

            assertTrue(
                    hub.requests().stream()
                            .anyMatch(r -> r.path().equals("/cdn/" + TinyHubRepo.TE_SHARD_1)
                                    && ("bytes=" + kept + "-").equals(r.range())),
                    "a Range request from byte " + kept + ": " + hub.requests());
            DownloadedFile shard = second.files().stream()
                    .filter(f -> f.path().equals(TinyHubRepo.TE_SHARD_1))
                    .findFirst()
                    .orElseThrow();
            assertEquals(kept, shard.resumedFrom());
            assertEquals(
                    TinyHubRepo.TE_SHARD_1_BYTES - kept,
                    second.transferredBytes()
                            - second.files().stream()
                                    .filter(f -> !f.path().equals(TinyHubRepo.TE_SHARD_1))
                                    .filter(f -> f.outcome() == Outcome.DOWNLOADED)
                                    .mapToLong(DownloadedFile::bytes)
                                    .sum());
            assertFalse(Files.exists(part));
            assertSameFiles(repo, target);
        }
    }

    @Test
    void retryWithinOneRunResumesAfterACut() throws IOException {
        Path repo = repoDir();
        Path target = tmp.resolve("bundle");
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            hub.cutOnceAfter(TinyHubRepo.TR_SHARD_1, 70_000);
            download(options(hub, target).retries(1).build());
            assertTrue(
                    hub.requests().stream().anyMatch(r -> rangeStartsWithin(r, 70_000)),
                    hub.requests().toString());
            assertSameFiles(repo, target);
        }
    }

    @Test
    void stalledTransferIsAbortedAndResumed() throws IOException {
        Path repo = repoDir();
        Path target = tmp.resolve("bundle");
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            hub.stallOnceAfter(TinyHubRepo.TE_SHARD_2, 50_000);
            long start = System.nanoTime();
            download(options(hub, target)
                    .retries(1)
                    .stallTimeout(Duration.ofMillis(400))
                    .build());
            assertTrue(System.nanoTime() - start < Duration.ofSeconds(20).toNanos(), "the stall was detected");
            assertTrue(
                    hub.requests().stream().anyMatch(r -> rangeStartsWithin(r, 50_000)),
                    hub.requests().toString());
            assertSameFiles(repo, target);
        }
    }

    @Test
    void shardTotalDifferentFromTheConfigIsAnErrorNamingBothValues() throws IOException {
        Path repo = tmp.resolve("repo");
        long wrongTotal = TinyHubRepo.TE_SHARD_1_BYTES + TinyHubRepo.TE_SHARD_2_BYTES + 1;
        TinyHubRepo.write(
                repo,
                c -> ((com.fasterxml.jackson.databind.node.ObjectNode)
                                c.get("models").get("text_encoder").get("shards"))
                        .put("total_bytes", wrongTotal));
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> download(options(hub, tmp.resolve("bundle")).build()));
            assertTrue(e.getMessage().contains("text_encoder"), e.getMessage());
            assertTrue(e.getMessage().contains(Long.toString(wrongTotal)), e.getMessage());
            assertTrue(e.getMessage().contains(Long.toString(wrongTotal - 1)), e.getMessage());
        }
    }

    @Test
    void largestShardDifferentFromTheConfigIsAnError() throws IOException {
        Path repo = tmp.resolve("repo");
        TinyHubRepo.write(
                repo,
                c -> ((com.fasterxml.jackson.databind.node.ObjectNode)
                                c.get("models").get("transformer").get("shards"))
                        .put("largest_bytes", 123));
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> download(options(hub, tmp.resolve("bundle")).build()));
            assertTrue(e.getMessage().contains("largest_bytes 123"), e.getMessage());
            assertTrue(e.getMessage().contains(Integer.toString(TinyHubRepo.TR_SHARD_1_BYTES)), e.getMessage());
        }
    }

    @Test
    void inlineGraphSizeDifferentFromOnnxBytesIsAnError() throws IOException {
        Path repo = tmp.resolve("repo");
        TinyHubRepo.write(
                repo,
                c -> ((com.fasterxml.jackson.databind.node.ObjectNode)
                                c.get("models").get("vae_decoder_pre").get("shards"))
                        .put("onnx_bytes", 69_999));
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> download(options(hub, tmp.resolve("bundle")).build()));
            assertTrue(
                    e.getMessage().contains("vae.onnx")
                            && e.getMessage().contains("69999")
                            && e.getMessage().contains("70000"),
                    e.getMessage());
        }
    }

    @Test
    void missingRequiredFileIsA404ErrorNamingTheFile() throws IOException {
        Path repo = repoDir();
        Files.delete(repo.resolve(TinyHubRepo.TR_SHARD_1));
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> download(options(hub, tmp.resolve("bundle")).build()));
            assertTrue(
                    e.getMessage().contains(TinyHubRepo.TR_SHARD_1)
                            && e.getMessage().contains("404"),
                    e.getMessage());
        }
    }

    @Test
    void wrongRevisionIsA404OnTheConfig() throws IOException {
        try (LoopbackHubServer hub = new LoopbackHubServer(repoDir(), REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> download(
                            options(hub, tmp.resolve("bundle")).revision("main").build()));
            assertTrue(
                    e.getMessage().contains("flux2-config.json")
                            && e.getMessage().contains("404"),
                    e.getMessage());
        }
    }

    @Test
    void manifestNamingAPathOutsideTheFolderIsRejected() throws IOException {
        Path repo = repoDir();
        Files.writeString(repo.resolve("tr-manifest.json"), "[\"../escape.onnx_data\"]");
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            Path target = tmp.resolve("bundle");
            DownloadException e = assertThrows(
                    DownloadException.class, () -> download(options(hub, target).build()));
            assertTrue(e.getMessage().contains("../escape.onnx_data"), e.getMessage());
            assertFalse(Files.exists(tmp.resolve("escape.onnx_data")));
        }
    }

    @Test
    void pinnedBundleIsVerifiedBySizeAndBlake3() throws IOException {
        Path repo = repoDir();
        KnownBundles pinned = pinnedList(repo, path -> null);
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadReport report = new HfBundleDownloader(
                            options(hub, tmp.resolve("bundle")).build(), pinned, DownloadListener.NONE)
                    .download();
            assertTrue(report.hashVerified());
            assertSameFiles(repo, tmp.resolve("bundle"));
        }
    }

    @Test
    void aPinnedFileTheServerLacksIsAnErrorEvenIfOptionalElsewhere() throws IOException {
        Path repo = repoDir();
        Files.writeString(repo.resolve("tokenizer/chat_template.jinja"), "{{ messages }}");
        KnownBundles pinned = pinnedList(repo, path -> null);
        Files.delete(repo.resolve("tokenizer/chat_template.jinja"));
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> new HfBundleDownloader(
                                    options(hub, tmp.resolve("bundle")).build(), pinned, DownloadListener.NONE)
                            .download());
            assertTrue(
                    e.getMessage().contains("tokenizer/chat_template.jinja")
                            && e.getMessage().contains("404"),
                    e.getMessage());
        }
    }

    @Test
    void blake3MismatchNamesTheFileAndBothDigestsAndDropsTheTransfer() throws IOException {
        Path repo = repoDir();
        String wrong = "00".repeat(32);
        KnownBundles pinned = pinnedList(repo, path -> path.equals(TinyHubRepo.TE_SHARD_2) ? wrong : null);
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            Path target = tmp.resolve("bundle");
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> new HfBundleDownloader(options(hub, target).build(), pinned, DownloadListener.NONE)
                            .download());
            String actual = Blake3Files.hexDigest(repo.resolve(TinyHubRepo.TE_SHARD_2));
            assertTrue(e.getMessage().contains(TinyHubRepo.TE_SHARD_2), e.getMessage());
            assertTrue(e.getMessage().contains(wrong) && e.getMessage().contains(actual), e.getMessage());
            assertFalse(Files.exists(target.resolve(TinyHubRepo.TE_SHARD_2)));
            assertFalse(Files.exists(target.resolve(TinyHubRepo.TE_SHARD_2 + ".part")));
        }
    }

    @Test
    void existingFileOfTheWrongSizeIsReportedForAPinnedBundle() throws IOException {
        Path repo = repoDir();
        KnownBundles pinned = pinnedList(repo, path -> null);
        Path target = tmp.resolve("bundle");
        Files.createDirectories(target);
        Files.write(target.resolve(TinyHubRepo.TR_SHARD_1), new byte[10]);
        try (LoopbackHubServer hub = new LoopbackHubServer(repo, REPO, REV)) {
            DownloadException e = assertThrows(
                    DownloadException.class,
                    () -> new HfBundleDownloader(options(hub, target).build(), pinned, DownloadListener.NONE)
                            .download());
            assertTrue(
                    e.getMessage().contains(TinyHubRepo.TR_SHARD_1)
                            && e.getMessage().contains("10 bytes")
                            && e.getMessage().contains(Integer.toString(TinyHubRepo.TR_SHARD_1_BYTES)),
                    e.getMessage());
        }
    }

    /** A resumed request: a Range from a byte in (0, limit], limit being what the server sent before the fault. */
    private static boolean rangeStartsWithin(LoopbackHubServer.Seen r, long limit) {
        if (r.range() == null || !r.range().matches("bytes=\\d+-")) {
            return false;
        }
        long start = Long.parseLong(r.range().substring(6, r.range().length() - 1));
        return start > 0 && start <= limit;
    }

    /** A known-bundles document for the tiny repo; {@code override} may replace a file's digest. */
    private static KnownBundles pinnedList(Path repo, Function<String, String> override) throws IOException {
        StringBuilder files = new StringBuilder();
        for (String f : TinyHubRepo.files(repo)) {
            String digest = override.apply(f);
            if (digest == null) {
                digest = Blake3Files.hexDigest(repo.resolve(f));
            }
            if (files.length() > 0) {
                files.append(',');
            }
            files.append("{\"path\":\"")
                    .append(f)
                    .append("\",\"bytes\":")
                    .append(Files.size(repo.resolve(f)))
                    .append(",\"blake3\":\"")
                    .append(digest)
                    .append("\"}");
        }
        String doc = "{\"bundles\":[{\"id\":\"tiny\",\"repo\":\"" + REPO + "\",\"revision\":\"" + REV + "\",\"files\":["
                + files + "]}]}";
        return KnownBundles.parse(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8)));
    }
}
