package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.FakeHub.Fault;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hub client against hostile or broken servers (issue #24): every body read bounded in time, every answer
 * bounded in size, secrets never shown, misleading answers named, rate limits honoured, free space checked first,
 * an interrupt honoured at once, an unreachable hub explained. Loopback only; each case bounded in time.
 */
class HubReliabilityTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    private FakeHub hub;
    private Path cache;
    private final List<Long> waits = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        cache = tmp.resolve("cache");
        hub = new FakeHub().publish(TinyRepo.REPO, TinyRepo.COMMIT, TinyRepo.write(tmp.resolve("origin")));
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    private ModelHub.Builder builder(Map<String, String> env, HubOptions.Builder options) {
        return ModelHub.builder()
                .options(options.build())
                .environment(env)
                .userHome(tmp.resolve("home"))
                .retries(0)
                .stallTimeout(Duration.ofMillis(400))
                .metadataTimeout(Duration.ofSeconds(2))
                .knownBundles(KnownBundles.none())
                .folderCheck(dir -> List.of())
                .sleeper(waits::add);
    }

    private ModelHub.Builder builder() {
        return builder(Map.of(), HubOptions.builder().cacheDir(cache).endpoint(hub.endpoint()));
    }

    private static RepoRef main() {
        return RepoRef.parse(TinyRepo.REPO + "@main");
    }

    private static boolean listing(String server, HttpExchange ex) {
        return server.equals("hub") && ex.getRequestURI().getRawPath().startsWith("/api/models/");
    }

    private HubException refused(ModelHub h) {
        return assertTimeoutPreemptively(BOUND, () -> assertThrows(HubException.class, () -> h.resolve(main())));
    }

    private static void answer(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        if (type != null) {
            ex.getResponseHeaders().add("Content-Type", type);
        }
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            ex.getResponseBody().write(body);
        }
    }

    // Hangs: a file list that sends its headers and then nothing, or a byte now and then.

    @Test
    void aFileListThatStallsAfterItsHeadersIsAbandoned() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            ex.getResponseBody().write("{\"sha\":".getBytes(StandardCharsets.UTF_8));
            ex.getResponseBody().flush();
            hub.awaitClosing();
            return true;
        });
        // Room for 3 stalls of 400 ms and the recorded waits, however loaded the machine: the total limit is not
        // what this test is about (aDrippingFileListIsOverWithinTheTotalLimitRetriesIncluded is).
        HubException e =
                refused(builder().metadataTimeout(Duration.ofSeconds(20)).build());
        assertTrue(e.getMessage().contains("no data arrived for 400 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("after 3 attempts"), e.getMessage());
    }

    @Test
    void aFileListThatDripsIsAbandonedAtTheMetadataTimeLimit() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write("{\"sha\":\"".getBytes(StandardCharsets.UTF_8));
            try {
                for (int i = 0; i < 300; i++) { // at most 30 s, far beyond the client's 2 s limit
                    out.write('0');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (IOException | InterruptedException gone) {
                // the client gave up, as it must
            }
            return true;
        });
        HubException e = refused(builder().build());
        assertTrue(e.getMessage().contains("the time limit was reached while data was still arriving"), e.getMessage());
    }

    /**
     * Issue #33: a list dripping at 2 bytes/s was not over within 65 s, as each of the 3 attempts had the whole
     * limit. The limit now bounds the call in total, retries and waits included.
     */
    @Test
    void aDrippingFileListIsOverWithinTheTotalLimitRetriesIncluded() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write("{\"sha\":\"".getBytes(StandardCharsets.UTF_8));
            try {
                for (int i = 0; i < 60; i++) { // 2 bytes a second for 30 s
                    out.write('0');
                    out.flush();
                    Thread.sleep(500);
                }
            } catch (IOException | InterruptedException gone) {
                // the client gave up, as it must
            }
            return true;
        });
        long start = System.nanoTime();
        HubException e = refused(builder().stallTimeout(Duration.ofSeconds(1)).build());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 5_000, "over after " + millis + " ms, the limit is 2 s in total: " + e.getMessage());
        assertTrue(e.getMessage().contains("the time limit was reached while data was still arriving"), e.getMessage());
    }

    /** The answer's headers are waited for only as long as the total limit leaves (the header timeout is 60 s). */
    @Test
    void aFileListWhoseHeadersNeverComeIsOverWithinTheTotalLimit() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            hub.awaitClosing();
            return true;
        });
        long start = System.nanoTime();
        HubException e = refused(builder().build());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis < 5_000, "over after " + millis + " ms, the limit is 2 s in total: " + e.getMessage());
        assertTrue(e.getMessage().contains("the file list of"), e.getMessage());
    }

    // Memory blow-ups: too many entries, too deep, too large.

    @Test
    void aFileListWithTooManyEntriesIsRefusedByItsNamedLimit() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write(("{\"sha\":\"" + TinyRepo.COMMIT + "\",\"siblings\":[").getBytes(StandardCharsets.US_ASCII));
            byte[] entry = "{\"rfilename\":\"a.json\"},".getBytes(StandardCharsets.US_ASCII);
            try {
                for (int i = 0; i < ListingParser.MAX_FILES + 10; i++) {
                    out.write(entry);
                }
                out.write("{}]}".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException gone) {
                // the client stopped reading at its limit
            }
            return true;
        });
        HubException e = refused(builder().build());
        assertTrue(e.getMessage().contains("more than 100000 files"), e.getMessage());
    }

    @Test
    void aDeeplyNestedFileListIsRefusedByItsNamedLimit() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            String deep = "{\"sha\":\"" + TinyRepo.COMMIT + "\",\"cardData\":" + "[".repeat(100_000);
            answer(ex, 200, "application/json", deep.getBytes(StandardCharsets.US_ASCII));
            return true;
        });
        HubException e = refused(builder().build());
        assertTrue(e.getMessage().contains("breaks a limit on a file list"), e.getMessage());
        assertTrue(e.getMessage().contains("nesting depth"), e.getMessage());
    }

    @Test
    void aHugeFileListIsRefusedByItsNamedLimit() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            out.write('{');
            byte[] blanks = " ".repeat(1 << 20).getBytes(StandardCharsets.US_ASCII);
            try {
                for (int i = 0; i < 80; i++) { // 80 MiB of whitespace, more than the 64 MiB limit
                    out.write(blanks);
                }
            } catch (IOException gone) {
                // the client stopped reading at its limit
            }
            return true;
        });
        HubException e =
                refused(builder().metadataTimeout(Duration.ofSeconds(15)).build());
        assertTrue(e.getMessage().contains("larger than 64 MiB (the limit on a file list)"), e.getMessage());
    }

    // Misleading messages: an HTML page, or broken JSON, instead of the file list.

    @Test
    void anHtmlPageInsteadOfTheFileListIsNamedWithItsTypeAndFirstBytes() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            answer(
                    ex,
                    200,
                    "text/html; charset=utf-8",
                    "<!DOCTYPE html>\n<html><body>Proxy login</body></html>".getBytes(StandardCharsets.UTF_8));
            return true;
        });
        HubException e = refused(builder().build());
        String m = e.getMessage();
        assertTrue(m.contains("an HTML page instead of the hub's JSON file list"), m);
        assertTrue(m.contains("Content-Type 'text/html; charset=utf-8'"), m);
        assertTrue(m.contains("starting with \"<!DOCTYPE html> <html><body>Proxy login"), m);
        assertTrue(m.contains(hub.endpoint() + "/api/models/" + TinyRepo.REPO + "/revision/main?blobs=true"), m);
        assertFalse(m.contains("Unrecognized token"), m);
    }

    @Test
    void malformedJsonSaysWhatCameWithControlCharactersReplaced() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            answer(ex, 200, "application/json", "{\"sha\": oops\u0007}".getBytes(StandardCharsets.UTF_8));
            return true;
        });
        String m = refused(builder().build()).getMessage();
        assertTrue(m.contains("malformed JSON"), m);
        assertTrue(m.contains("starting with \"{\"sha\": oops?}\""), m);
        assertFalse(m.contains("\u0007"), m);
    }

    // Secrets: token files with a BOM or a control character, an endpoint with user:password.

    @Test
    void aTokenFileWithAByteOrderMarkIsUsedWithoutIt() throws IOException {
        hub.publish("tester/private", TinyRepo.COMMIT, tmp.resolve("origin"), "hf_bomtoken_0123456789");
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, "\uFEFFhf_bomtoken_0123456789\n", StandardCharsets.UTF_8);
        ModelHub h = builder(
                        Map.of("HF_TOKEN_PATH", tokenFile.toString()),
                        HubOptions.builder().cacheDir(cache).endpoint(hub.endpoint()))
                .build();
        ResolvedModel m = assertTimeoutPreemptively(BOUND, () -> h.resolve(RepoRef.parse("tester/private@main")));
        assertEquals(TinyRepo.FILES.size(), m.fileCount());
    }

    @Test
    void aTokenWithAControlCharacterIsRefusedWithoutShowingIt() throws IOException {
        Path tokenFile = tmp.resolve("token");
        Files.writeString(tokenFile, "hf_secretpart\u0007tail", StandardCharsets.UTF_8);
        for (Map<String, String> env :
                List.of(Map.of("HF_TOKEN_PATH", tokenFile.toString()), Map.of("HF_TOKEN", "hf_secretpart\u0007tail"))) {
            HubException e = assertThrows(
                    HubException.class,
                    () -> builder(env, HubOptions.builder().cacheDir(cache).endpoint(hub.endpoint()))
                            .build());
            assertTrue(e.getMessage().contains("U+0007 at position 14"), e.getMessage());
            assertFalse(e.getMessage().contains("secretpart"), e.getMessage());
            assertFalse(e.getMessage().contains("tail"), e.getMessage());
        }
    }

    @Test
    void anEndpointsUserInfoIsSentAsBasicAuthAndNeverShown() {
        AtomicReference<String> auth = new AtomicReference<>();
        hub.intercept((server, ex) -> {
            if (listing(server, ex)) {
                auth.set(ex.getRequestHeaders().getFirst("Authorization"));
            }
            return false;
        });
        URI withPassword =
                URI.create("http://alice:s3cr%40t@127.0.0.1:" + hub.endpoint().getPort());
        ModelHub h = builder(
                        Map.of("HF_ENDPOINT", withPassword.toString()),
                        HubOptions.builder().cacheDir(cache))
                .build();
        assertEquals(hub.endpoint(), h.endpoint());
        assertTimeoutPreemptively(BOUND, () -> h.resolve(main()));
        String expected =
                "Basic " + Base64.getEncoder().encodeToString("alice:s3cr@t".getBytes(StandardCharsets.UTF_8));
        assertEquals(expected, auth.get());
        HubException e = assertThrows(HubException.class, () -> h.resolve(RepoRef.parse("tester/absent@main")));
        assertFalse(e.getMessage().contains("s3cr"), e.getMessage());
        assertFalse(e.getMessage().contains("alice"), e.getMessage());
        assertTrue(e.getMessage().contains(hub.endpoint().toString()), e.getMessage());
        HubException bad = assertThrows(
                HubException.class,
                () -> builder(Map.of("HF_ENDPOINT", "ftp://bob:hunter2@example.org"), HubOptions.builder())
                        .build());
        assertFalse(bad.getMessage().contains("hunter2"), bad.getMessage());
        assertTrue(bad.getMessage().contains("ftp://example.org"), bad.getMessage());
        dev.flux2.api.InvalidRequestException option = assertThrows(
                dev.flux2.api.InvalidRequestException.class,
                () -> HubOptions.builder()
                        .endpoint(URI.create("ftp://bob:hunter2@example.org"))
                        .build());
        assertFalse(option.getMessage().contains("hunter2"), option.getMessage());
        String shown = HubOptions.builder().endpoint(withPassword).build().toString();
        assertFalse(shown.contains("s3cr"), shown);
    }

    // Resources: a size the disk cannot hold, a rate limit with Retry-After.

    @Test
    void aFileLargerThanTheFreeSpaceIsRefusedBeforeAnyByteIsWritten() {
        hub.intercept((server, ex) -> {
            if (!listing(server, ex)) {
                return false;
            }
            String body = "{\"sha\":\"" + TinyRepo.COMMIT + "\",\"siblings\":[{\"rfilename\":\"te.onnx\","
                    + "\"size\":1000000000000,\"lfs\":{\"sha256\":\"" + "ab".repeat(32) + "\","
                    + "\"size\":1000000000000}}]}";
            answer(ex, 200, "application/json", body.getBytes(StandardCharsets.US_ASCII));
            return true;
        });
        HubException e = refused(builder().build());
        assertTrue(e.getMessage().contains("not enough free space"), e.getMessage());
        assertTrue(e.getMessage().contains("1,000,000,000,000 bytes"), e.getMessage());
        assertTrue(hub.requests().stream().noneMatch(s -> s.path().contains("/resolve/")), hub.requests()::toString);
    }

    @Test
    void retryAfterIsHonouredInSecondsAndAsAnHttpDateAndBounded() {
        AtomicInteger limited = new AtomicInteger(2);
        hub.intercept((server, ex) -> {
            if (!listing(server, ex) || limited.getAndDecrement() <= 0) {
                return false;
            }
            ex.getResponseHeaders().add("Retry-After", "4");
            answer(ex, 429, null, new byte[0]);
            return true;
        });
        // The waits are recorded, not slept; the total limit must leave room for them (issue #33).
        ModelHub h = builder().metadataTimeout(Duration.ofSeconds(30)).build();
        assertTimeoutPreemptively(BOUND, () -> h.resolve(main()));
        assertEquals(List.of(4000L, 4000L), waits);

        java.time.Instant t0 = java.time.Instant.now();
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                ZonedDateTime.ofInstant(t0.plusSeconds(30), ZoneOffset.UTC));
        Duration d = RetryAfter.parse(date, t0).orElseThrow();
        assertTrue(d.compareTo(Duration.ofSeconds(29)) >= 0 && d.compareTo(Duration.ofSeconds(30)) <= 0, d::toString);
        assertEquals(
                Duration.ZERO,
                RetryAfter.parse("Thu, 01 Jan 1970 00:00:00 GMT", t0).orElseThrow());
        assertTrue(RetryAfter.parse("soon", t0).isEmpty());

        hub.intercept((server, ex) -> {
            ex.getResponseHeaders().add("Retry-After", "100000");
            answer(ex, 503, null, new byte[0]);
            return true;
        });
        waits.clear();
        HubException e = assertThrows(HubException.class, () -> h.resolve(RepoRef.parse(TinyRepo.REPO + "@other")));
        assertTrue(e.getMessage().contains("asks to wait 100000 s"), e.getMessage());
        assertEquals(List.of(), waits);
    }

    @Test
    void aRateLimitedFileTransferWaitsWhatRetryAfterAsks() {
        AtomicInteger limited = new AtomicInteger(1);
        hub.intercept((server, ex) -> {
            if (!server.equals("cdn") || limited.getAndDecrement() <= 0) {
                return false;
            }
            ex.getResponseHeaders().add("Retry-After", "3");
            answer(ex, 429, null, new byte[0]);
            return true;
        });
        assertTimeoutPreemptively(BOUND, () -> builder().retries(1).build().resolve(main()));
        assertEquals(List.of(3000L), waits);
    }

    // Cancellation: an interrupt stops a transfer at once and keeps what arrived.

    @Test
    void anInterruptStopsATransferAtOnceAndKeepsThePartialFile() throws Exception {
        hub.inject(TinyRepo.SHARD, Fault.STALL, 100_000);
        AtomicReference<Thread> worker = new AtomicReference<>();
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        DownloadListener listener = new DownloadListener() {
            @Override
            public void transferProgress(String path, long bytesDone) {
                if (path.equals(TinyRepo.SHARD) && bytesDone >= 100_000) {
                    arrived.countDown();
                }
            }
        };
        ModelHub h = builder(
                        Map.of(),
                        HubOptions.builder()
                                .cacheDir(cache)
                                .endpoint(hub.endpoint())
                                .listener(listener))
                .stallTimeout(Duration.ofSeconds(60))
                .retries(3)
                .build();
        CompletableFuture<ResolvedModel> run = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                run.complete(h.resolve(main()));
            } catch (Throwable e) {
                run.completeExceptionally(e);
            }
        });
        worker.set(t);
        t.start();
        assertTrue(arrived.await(15, TimeUnit.SECONDS), "the first 100,000 bytes never arrived");
        long interruptedAt = System.nanoTime();
        t.interrupt();
        ExecutionException e = assertThrows(ExecutionException.class, () -> run.get(5, TimeUnit.SECONDS));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interruptedAt);
        assertTrue(took < 3000, "took " + took + " ms to stop");
        assertTrue(e.getCause() instanceof HubException, String.valueOf(e.getCause()));
        assertTrue(
                e.getCause().getMessage().contains("interrupted (cancelled)"),
                e.getCause().getMessage());
        try (Stream<Path> s = Files.walk(cache)) {
            List<Path> parts =
                    s.filter(p -> p.toString().endsWith(".incomplete")).toList();
            assertEquals(1, parts.size(), parts::toString);
            assertEquals(100_000, Files.size(parts.get(0)));
        }
        assertEquals(List.of(), waits, "a cancelled transfer is not retried");
    }

    // Newcomer: no network.

    @Test
    void anUnreachableHubSaysWhatFailedAndTheWayForward() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ModelHub h = builder(
                        Map.of(), HubOptions.builder().cacheDir(cache).endpoint(URI.create("http://127.0.0.1:" + port)))
                .build();
        String m = refused(h).getMessage();
        assertTrue(m.contains("the connection to 127.0.0.1:" + port + " was refused"), m);
        assertTrue(m.contains("--offline"), m);
        assertTrue(m.contains("HF_ENDPOINT"), m);
        assertTrue(m.contains("flux2 download --dir"), m);
        assertTrue(m.contains("synthetic demo"), m);
        assertFalse(m.contains("java.net.ConnectException"), m);
    }

    @Test
    void eachKindOfNetworkFailureIsNamed() {
        URI u = URI.create("https://hub.example:8443/api");
        assertTrue(NetFailure.describe(u, new IOException(new java.net.UnknownHostException("hub.example")))
                .contains("cannot resolve the host name hub.example"));
        assertTrue(NetFailure.describe(u, new java.net.http.HttpConnectTimeoutException("HTTP connect timed out"))
                .contains("connecting to hub.example:8443 timed out"));
        assertTrue(NetFailure.describe(u, new javax.net.ssl.SSLHandshakeException("PKIX path building failed"))
                .contains("the TLS handshake with hub.example:8443 failed"));
        assertTrue(NetFailure.unreachable(new java.net.ConnectException()));
        assertFalse(NetFailure.unreachable(new IOException("HTTP 503")));
    }
}
