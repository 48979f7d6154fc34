package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.FakeHub.Fault;
import dev.flux2.testkit.FakeHub.Seen;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Resolution against a loopback hub (listing, resolve URLs, CDN redirect, Range, faults); no network. */
class ModelHubTest {
    private static final String TOKEN = "hf_testtoken_never_logged_0123456789";

    @TempDir
    Path tmp;

    private FakeHub hub;
    private Path origin;
    private Path cache;

    @BeforeEach
    void start() throws IOException {
        origin = TinyRepo.write(tmp.resolve("origin"));
        cache = tmp.resolve("cache");
        hub = new FakeHub().publish(TinyRepo.REPO, TinyRepo.COMMIT, origin);
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private ModelHub.Builder builder(HubOptions.Builder options) {
        return ModelHub.builder()
                .options(options.build())
                .environment(Map.of())
                .userHome(tmp.resolve("home"))
                .retries(0)
                .stallTimeout(Duration.ofSeconds(10))
                .knownBundles(KnownBundles.none())
                .folderCheck(dir -> List.of())
                .sleeper(ms -> {});
    }

    private HubOptions.Builder options() {
        return HubOptions.builder().cacheDir(cache).endpoint(hub.endpoint());
    }

    private ModelHub hub() {
        return builder(options()).build();
    }

    private static RepoRef main() {
        return RepoRef.parse(TinyRepo.REPO);
    }

    private Path repoDir() {
        return cache.resolve("models--tester--tiny-bundle");
    }

    private Path blob(String path) {
        return repoDir().resolve("blobs").resolve(hub.etag(TinyRepo.REPO, path));
    }

    private void assertSameFiles(Path folder) throws IOException {
        for (String f : TinyRepo.FILES) {
            assertArrayEquals(Files.readAllBytes(origin.resolve(f)), Files.readAllBytes(folder.resolve(f)), f);
        }
        try (Stream<Path> s = Files.walk(folder)) {
            assertEquals(
                    TinyRepo.FILES,
                    s.filter(p -> !Files.isDirectory(p))
                            .map(p -> folder.relativize(p).toString().replace('\\', '/'))
                            .filter(p -> !p.startsWith(".cache/"))
                            .sorted()
                            .toList());
        }
    }

    private long cdnGets(String path) {
        String sha = hub.etag(TinyRepo.REPO, path);
        return hub.requests().stream()
                .filter(r -> r.server().equals("cdn") && r.path().endsWith(sha))
                .count();
    }

    @Test
    void resolvesByRepoIdIntoTheHubCacheLayoutThenASecondRunMakesNoRequest() throws IOException {
        List<DownloadPlan> plans = new CopyOnWriteArrayList<>();
        DownloadListener listener = new DownloadListener() {
            @Override
            public void downloadPlanned(DownloadPlan plan) {
                plans.add(plan);
            }
        };
        ModelHub h = builder(options().listener(listener)).build();

        ResolvedModel first = h.resolve(main());

        Path snapshot = repoDir().resolve("snapshots").resolve(TinyRepo.COMMIT);
        assertEquals(snapshot, first.directory());
        assertSameFiles(snapshot);
        assertTrue(first.requests());
        assertEquals(TinyRepo.FILES.size(), first.downloadedFiles());
        assertEquals(TinyRepo.COMMIT, Files.readString(repoDir().resolve("refs/main")));
        // Relative links into blobs/{etag}, one more ".." per sub-folder (file_download._create_symlink).
        assertEquals(
                Path.of("../../blobs/" + hub.etag(TinyRepo.REPO, TinyRepo.SHARD)),
                Files.readSymbolicLink(snapshot.resolve(TinyRepo.SHARD)));
        assertEquals(
                Path.of("../../../blobs/" + hub.etag(TinyRepo.REPO, TinyRepo.TOKENIZER)),
                Files.readSymbolicLink(snapshot.resolve(TinyRepo.TOKENIZER)));
        assertEquals(64, hub.etag(TinyRepo.REPO, TinyRepo.SHARD).length(), "LFS blobs are named by SHA-256");
        assertEquals(40, hub.etag(TinyRepo.REPO, TinyRepo.TOKENIZER).length(), "git blobs by their SHA-1");
        assertTrue(Files.exists(cache.resolve(
                ".locks/models--tester--tiny-bundle/" + hub.etag(TinyRepo.REPO, TinyRepo.SHARD) + ".lock")));
        assertEquals(1, plans.size());
        assertEquals(TinyRepo.FILES, plans.get(0).paths());
        assertEquals(1, cdnGets(TinyRepo.SHARD));
        assertTrue(hub.requests().stream().noneMatch(r -> r.path().endsWith("README.md")), "the card stays behind");

        hub.clearRequests();
        ResolvedModel second = h.resolve(main());
        assertEquals(List.of(), hub.requests(), "a complete cache makes no request");
        assertFalse(second.requests());
        assertEquals(snapshot, second.directory());
        assertEquals(1, plans.size(), "nothing to fetch, nothing announced");

        hub.clearRequests();
        h.resolve(new RepoRef(TinyRepo.REPO, TinyRepo.COMMIT));
        assertEquals(List.of(), hub.requests(), "a commit id needs no ref");
    }

    /** The repository paths fetched from the hub (HEAD or GET on a resolve URL), in request order. */
    private List<String> resolvedPaths() {
        String prefix = "/" + TinyRepo.REPO + "/resolve/";
        return hub.requests().stream()
                .filter(r -> r.server().equals("hub") && r.path().startsWith(prefix))
                .map(r -> r.path().substring(prefix.length()).replaceFirst("^[^/]+/", ""))
                .toList();
    }

    private long listings() {
        return hub.requests().stream()
                .filter(r -> r.path().startsWith("/api/models/"))
                .count();
    }

    @Test
    void aSelectionFetchesOnlyItsFilesAndASecondRunMakesNoRequest() throws IOException {
        List<String> config =
                List.of("flux2-config.json", "te-manifest.json", TinyRepo.TOKENIZER, "tokenizer/tokenizer_config.json");
        ModelHub h = hub();

        ResolvedModel first = h.resolve(main(), FileSelection.CONFIG_AND_TOKENIZER);

        Path snapshot = repoDir().resolve("snapshots").resolve(TinyRepo.COMMIT);
        assertEquals(snapshot, first.directory());
        assertEquals(1, listings(), hub.requests().toString());
        assertEquals(
                config,
                resolvedPaths().stream().distinct().sorted().toList(),
                hub.requests().toString());
        assertEquals(
                0, hub.requests().stream().filter(r -> r.server().equals("cdn")).count(), "no LFS file");
        assertEquals(4, first.fileCount());
        assertEquals(4, first.downloadedFiles());
        try (Stream<Path> files = Files.walk(snapshot)) {
            assertEquals(
                    config,
                    files.filter(p -> !Files.isDirectory(p))
                            .map(p -> snapshot.relativize(p).toString().replace('\\', '/'))
                            .sorted()
                            .toList());
        }
        for (String f : config) {
            assertArrayEquals(Files.readAllBytes(origin.resolve(f)), Files.readAllBytes(snapshot.resolve(f)), f);
        }

        hub.clearRequests();
        ResolvedModel again = h.resolve(main(), FileSelection.CONFIG_AND_TOKENIZER);
        assertEquals(List.of(), hub.requests(), "the selected files are in the cache: no request");
        assertFalse(again.requests());

        // The partial snapshot is not mistaken for the whole model: a full resolution fetches the rest only.
        hub.clearRequests();
        ResolvedModel whole = h.resolve(main());
        assertEquals(2, whole.downloadedFiles());
        assertEquals(
                List.of("te-00001.onnx_data", "te.onnx"),
                resolvedPaths().stream().distinct().sorted().toList());
        assertSameFiles(snapshot);
    }

    @Test
    void aSelectionOfNothingTheRepoHasAndAnOfflineSelectionAreNamed() {
        HubException none = assertThrows(
                HubException.class,
                () -> hub().resolve(main(), FileSelection.of("of the VAE encoder", p -> p.contains("vae-encoder"))));
        assertTrue(
                none.getMessage()
                        .startsWith(TinyRepo.REPO + "@main (commit " + TinyRepo.COMMIT + ") has none of the"
                                + " files of the VAE encoder; its model files: flux2-config.json"),
                none.getMessage());
        HubException offline = assertThrows(
                HubException.class,
                () -> builder(options().offline(true)).build().resolve(main(), FileSelection.CONFIG_AND_TOKENIZER));
        assertTrue(offline.getMessage().startsWith("offline mode"), offline.getMessage());
    }

    @Test
    void aCacheLaidOutByHuggingfaceHubIsUsedWithZeroRequests() throws IOException {
        // What huggingface_hub writes: blobs/{etag}, relative links in snapshots/{commit}/, refs/main.
        Path repo = repoDir();
        Path snapshot = repo.resolve("snapshots").resolve(TinyRepo.COMMIT);
        for (String f : List.of(TinyRepo.FILES.toArray(String[]::new))) {
            Path blob = blob(f);
            Files.createDirectories(blob.getParent());
            Files.copy(origin.resolve(f), blob);
            Path pointer = snapshot.resolve(f);
            Files.createDirectories(pointer.getParent());
            Files.createSymbolicLink(pointer, pointer.getParent().relativize(blob));
        }
        Files.createDirectories(repo.resolve("refs"));
        Files.writeString(repo.resolve("refs/main"), TinyRepo.COMMIT);
        Files.createDirectories(cache.resolve(".locks/models--tester--tiny-bundle"));

        ResolvedModel r = hub().resolve(main());

        assertEquals(List.of(), hub.requests());
        assertEquals(snapshot, r.directory());
        assertEquals(TinyRepo.FILES.size(), r.fileCount());
        assertTrue(
                Files.exists(cache.resolve(".locks/models--tester--tiny-bundle/"
                        + hub.etag(TinyRepo.REPO, TinyRepo.SHARD) + ".flux2-verified")),
                "hashed once, recorded");
    }

    @Test
    void offlineWorksWithACompleteCacheAndFailsClearlyWithAnEmptyOne() {
        hub().resolve(main());
        hub.clearRequests();

        ResolvedModel r = builder(options().offline(true)).build().resolve(main());
        assertFalse(r.requests());

        Path empty = tmp.resolve("empty-cache");
        HubException e = assertThrows(
                HubException.class,
                () -> builder(options().cacheDir(empty).offline(true)).build().resolve(main()));
        assertTrue(e.getMessage().contains("offline") && e.getMessage().contains("refs"), e.getMessage());
        assertEquals(List.of(), hub.requests());

        // HF_HUB_OFFLINE=1 from the environment, as huggingface_hub reads it.
        HubException env = assertThrows(
                HubException.class,
                () -> builder(options().cacheDir(empty))
                        .environment(Map.of("HF_HUB_OFFLINE", "1"))
                        .build()
                        .resolve(main()));
        assertTrue(env.getMessage().contains("offline"), env.getMessage());
        assertEquals(List.of(), hub.requests());
    }

    @Test
    void offlineWithAMissingFileNamesIt() throws IOException {
        hub().resolve(main());
        Files.delete(blob(TinyRepo.SHARD));
        HubException e = assertThrows(
                HubException.class,
                () -> builder(options().offline(true)).build().resolve(main()));
        assertTrue(e.getMessage().contains(TinyRepo.SHARD), e.getMessage());
    }

    @Test
    void aCorruptedBlobIsDetectedAndFetchedAgain() throws IOException {
        ModelHub h = hub();
        h.resolve(main());
        Path blob = blob(TinyRepo.SHARD);
        byte[] bad = Files.readAllBytes(blob);
        bad[1000] ^= 1;
        Files.write(blob, bad);

        HubException offline = assertThrows(
                HubException.class,
                () -> builder(options().offline(true)).build().resolve(main()));
        assertTrue(
                offline.getMessage().contains(TinyRepo.SHARD)
                        && offline.getMessage().contains("sha256: expected " + hub.etag(TinyRepo.REPO, TinyRepo.SHARD)),
                offline.getMessage());

        hub.clearRequests();
        ResolvedModel r = h.resolve(main());
        assertSameFiles(r.directory());
        assertEquals(1, cdnGets(TinyRepo.SHARD));
        assertEquals(1, r.downloadedFiles());
    }

    @Test
    void aTruncatedLocalFileIsNotTrusted() throws IOException {
        ModelHub h = hub();
        h.resolve(main());
        Path blob = blob(TinyRepo.TOKENIZER);
        byte[] all = Files.readAllBytes(blob);
        Files.write(blob, java.util.Arrays.copyOf(all, all.length / 3));

        hub.clearRequests();
        ResolvedModel r = h.resolve(main());
        assertTrue(r.requests());
        assertEquals(1, r.downloadedFiles());
        assertSameFiles(r.directory());
    }

    @Test
    void anEditThatKeepsSizeAndTimeIsCaughtByVerify() throws IOException {
        ModelHub h = hub();
        Path folder = h.resolve(main()).directory();
        Path blob = blob(TinyRepo.SHARD);
        FileTime time = Files.getLastModifiedTime(blob);
        byte[] bad = Files.readAllBytes(blob);
        bad[7] ^= 1;
        Files.write(blob, bad);
        Files.setLastModifiedTime(blob, time);

        VerificationReport report = h.verify(TinyRepo.REPO);
        assertEquals(folder, report.directory());
        assertFalse(report.ok());
        assertEquals(1, report.failures().size());
        FileVerification f = report.failures().get(0);
        assertEquals(TinyRepo.SHARD, f.path());
        assertEquals("sha256", f.algorithm());
        assertEquals(hub.etag(TinyRepo.REPO, TinyRepo.SHARD), f.expectedDigest());
        assertTrue(f.describe().contains("expected"), f.describe());
        assertEquals(
                TinyRepo.FILES.size() - 1,
                report.files().stream()
                        .filter(x -> x.status() == FileVerification.Status.OK)
                        .count());
        // The same report through the snapshot folder.
        assertEquals(report.failures(), h.verify(folder.toString()).failures());
    }

    @Test
    void aShortResponseIsAnErrorNamingTheFileAndTheNextRunRepairsIt() throws IOException {
        hub.inject(TinyRepo.SHARD, Fault.SHORT, 0);
        HubException e = assertThrows(HubException.class, () -> hub().resolve(main()));
        assertTrue(
                e.getMessage().contains(TinyRepo.SHARD)
                        && e.getMessage().contains("200000")
                        && e.getMessage().contains("400000"),
                e.getMessage());
        assertFalse(Files.exists(blob(TinyRepo.SHARD)));
        assertFalse(Files.exists(Path.of(blob(TinyRepo.SHARD) + ".incomplete")), "the bad transfer is deleted");

        assertSameFiles(hub().resolve(main()).directory());
    }

    @Test
    void anHtmlPageInsteadOfAFileIsAnErrorAndTheNextRunRepairsIt() throws IOException {
        hub.inject(TinyRepo.TOKENIZER, Fault.HTML, 0);
        HubException e = assertThrows(HubException.class, () -> hub().resolve(main()));
        assertTrue(e.getMessage().contains(TinyRepo.TOKENIZER) && e.getMessage().contains("text/html"), e.getMessage());
        assertSameFiles(hub().resolve(main()).directory());
    }

    @Test
    void aCorruptTransferIsAnErrorNamingBothDigestsAndIsDeleted() throws IOException {
        hub.inject(TinyRepo.SHARD, Fault.CORRUPT, 0);
        HubException e = assertThrows(HubException.class, () -> hub().resolve(main()));
        String sha = hub.etag(TinyRepo.REPO, TinyRepo.SHARD);
        assertTrue(
                e.getMessage().contains(TinyRepo.SHARD)
                        && e.getMessage().contains("expected " + sha)
                        && e.getMessage().contains("found "),
                e.getMessage());
        assertFalse(Files.exists(Path.of(blob(TinyRepo.SHARD) + ".incomplete")));
        assertSameFiles(hub().resolve(main()).directory());
    }

    @Test
    void anInterruptedTransferResumesWithARangeRequestOnTheNextRun() throws IOException {
        hub.inject(TinyRepo.SHARD, Fault.CUT, 150_000);
        HubException e = assertThrows(HubException.class, () -> hub().resolve(main()));
        assertTrue(e.getMessage().contains(TinyRepo.SHARD) && e.getMessage().contains("resume"), e.getMessage());
        Path part = Path.of(blob(TinyRepo.SHARD) + ".incomplete");
        long kept = Files.size(part);
        assertTrue(kept > 0 && kept <= 150_000, "kept " + kept);

        hub.clearRequests();
        ResolvedModel r = hub().resolve(main());
        assertSameFiles(r.directory());
        assertTrue(
                hub.requests().stream()
                        .anyMatch(s -> s.server().equals("cdn") && ("bytes=" + kept + "-").equals(s.range())),
                hub.requests().toString());
        // flux2-config.json came before the cut; the shard's first bytes are not fetched again.
        assertEquals(r.totalBytes() - kept - Files.size(origin.resolve("flux2-config.json")), r.downloadedBytes());
        assertFalse(Files.exists(part));
    }

    @Test
    void aStalledTransferIsAbortedAndResumedWithinOneRun() throws IOException {
        hub.inject(TinyRepo.SHARD, Fault.STALL, 100_000);
        ModelHub h = builder(options())
                .retries(1)
                .stallTimeout(Duration.ofMillis(300))
                .build();
        assertSameFiles(h.resolve(main()).directory());
        assertTrue(hub.requests().stream().anyMatch(s -> s.server().equals("cdn") && s.range() != null));
    }

    @Test
    void twoConcurrentResolutionsEndWithOneValidCopy() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<ResolvedModel>> results = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                results.add(pool.submit(() -> {
                    go.await(10, TimeUnit.SECONDS);
                    return hub().resolve(main());
                }));
            }
            go.countDown();
            ResolvedModel a = results.get(0).get(60, TimeUnit.SECONDS);
            ResolvedModel b = results.get(1).get(60, TimeUnit.SECONDS);
            assertEquals(a.directory(), b.directory());
            assertSameFiles(a.directory());
            assertEquals(TinyRepo.FILES.size(), a.downloadedFiles() + b.downloadedFiles(), "each file fetched by one");
            for (String f : TinyRepo.FILES) {
                long gets = hub.requests().stream()
                        .filter(r -> r.method().equals("GET")
                                && (r.path().endsWith("/" + f) || r.path().endsWith(hub.etag(TinyRepo.REPO, f)))
                                && r.server().equals(f.endsWith(".onnx") || f.endsWith(".onnx_data") ? "cdn" : "hub"))
                        .count();
                assertEquals(1, gets, f + " was fetched once: " + hub.requests());
            }
            try (Stream<Path> s = Files.list(repoDir().resolve("blobs"))) {
                assertEquals(
                        List.of(),
                        s.filter(p -> p.toString().endsWith(".incomplete")).toList());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPrivateRepositoryNeedsTheTokenWhichNeverLeavesTheEndpointNorAppearsInMessages() throws IOException {
        hub.publish("tester/private", TinyRepo.COMMIT, origin, TOKEN);
        RepoRef ref = RepoRef.parse("tester/private");

        HubException without = assertThrows(HubException.class, () -> hub().resolve(ref));
        assertTrue(
                without.getMessage().contains("401") && without.getMessage().contains("no token"),
                without.getMessage());

        HubException wrong = assertThrows(
                HubException.class,
                () -> builder(options().token("hf_wrong_token")).build().resolve(ref));
        assertFalse(wrong.getMessage().contains("hf_wrong_token"), wrong.getMessage());

        hub.clearRequests();
        ResolvedModel r = builder(options())
                .environment(Map.of("HF_TOKEN", TOKEN))
                .build()
                .resolve(ref);
        assertSameFiles(r.directory());
        List<Seen> seen = hub.requests();
        assertTrue(seen.stream().filter(s -> s.server().equals("hub")).allMatch(Seen::authorized), seen.toString());
        assertTrue(
                seen.stream().filter(s -> s.server().equals("cdn")).noneMatch(Seen::authorized),
                "the token is dropped when the redirect leaves the endpoint: " + seen);
        assertTrue(seen.stream().anyMatch(s -> s.server().equals("cdn")));
    }

    @Test
    void anUnknownRevisionOrRepositoryIsAnErrorNamingIt() {
        HubException rev = assertThrows(HubException.class, () -> hub().resolve(RepoRef.parse(TinyRepo.REPO + "@v9")));
        assertTrue(
                rev.getMessage().contains("404")
                        && rev.getMessage().contains("RevisionNotFound")
                        && rev.getMessage().contains("@v9"),
                rev.getMessage());
        HubException repo = assertThrows(HubException.class, () -> hub().resolve(RepoRef.parse("tester/nothing")));
        assertTrue(
                repo.getMessage().contains("tester/nothing")
                        && repo.getMessage().contains("401"),
                repo.getMessage());
    }

    @Test
    void downloadWritesAPlainFolderAndARerunFetchesNothing() throws IOException {
        Path dir = tmp.resolve("plain");
        ResolvedModel r = hub().download(main(), dir);
        assertEquals(dir, r.directory());
        assertSameFiles(dir);
        assertFalse(Files.isSymbolicLink(dir.resolve(TinyRepo.SHARD)));
        List<String> meta =
                Files.readAllLines(dir.resolve(".cache/huggingface/download/" + TinyRepo.SHARD + ".metadata"));
        assertEquals(TinyRepo.COMMIT, meta.get(0));
        assertEquals(hub.etag(TinyRepo.REPO, TinyRepo.SHARD), meta.get(1));

        hub.clearRequests();
        ResolvedModel again = hub().download(main(), dir);
        assertEquals(0, again.downloadedFiles());
        assertEquals(1, hub.requests().size(), "only the file list: " + hub.requests());

        assertTrue(hub().verify(dir.toString()).ok());
        Files.writeString(dir.resolve(TinyRepo.TOKENIZER), "<html>not json</html>");
        VerificationReport report = hub().verify(dir.toString());
        assertEquals(
                List.of(TinyRepo.TOKENIZER),
                report.failures().stream().map(FileVerification::path).toList());

        ResolvedModel repaired = hub().download(main(), dir);
        assertEquals(1, repaired.downloadedFiles());
        assertSameFiles(dir);
    }

    @Test
    void aPinnedBundleIsCheckedWithBlake3Too() throws IOException {
        StringBuilder json = new StringBuilder("{\"bundles\": [{\"id\": \"t\", \"repo\": \"" + TinyRepo.REPO
                + "\", \"revision\": \"" + TinyRepo.COMMIT + "\", \"files\": [");
        String bad = null;
        for (String f : TinyRepo.FILES) {
            String b3 = Digests.hash(origin.resolve(f), Digests.Kind.NONE, true)
                    .blake3()
                    .orElseThrow();
            if (f.equals(TinyRepo.SHARD)) {
                bad = b3;
                b3 = "00" + b3.substring(2);
            }
            json.append(f.equals(TinyRepo.FILES.get(0)) ? "" : ",")
                    .append("{\"path\": \"")
                    .append(f)
                    .append("\", \"bytes\": ")
                    .append(Files.size(origin.resolve(f)))
                    .append(", \"blake3\": \"")
                    .append(b3)
                    .append("\"}");
        }
        KnownBundles known = KnownBundles.parse(
                new ByteArrayInputStream(json.append("]}]}").toString().getBytes(StandardCharsets.UTF_8)));
        HubException e = assertThrows(
                HubException.class,
                () -> builder(options()).knownBundles(known).build().resolve(main()));
        assertTrue(
                e.getMessage().contains(TinyRepo.SHARD)
                        && e.getMessage().contains("BLAKE3")
                        && e.getMessage().contains(bad),
                e.getMessage());
    }

    @Test
    void theBackendCheckDecidesWhetherASnapshotIsComplete() {
        hub().resolve(main());
        hub.clearRequests();
        List<String> problem = List.of("flux2-config.json names vae.onnx, which is missing");
        HubException e = assertThrows(
                HubException.class,
                () -> builder(options()).folderCheck(d -> problem).build().resolve(main()));
        assertTrue(e.getMessage().contains("vae.onnx"), e.getMessage());
        assertEquals(1, hub.requests().size(), "an incomplete snapshot is looked up again: " + hub.requests());
    }
}
