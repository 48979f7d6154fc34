package dev.flux2.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A small Hugging Face hub on 127.0.0.1 for tests, behaving as the real one does for downloads:
 *
 * <ul>
 *   <li>{@code GET /api/models/{repo}/revision/{revision}} answers {@code sha} and {@code siblings[]}
 *       ({@code rfilename}, {@code size}, {@code blobId}, {@code lfs.sha256/size/pointerSize});
 *   <li>{@code HEAD|GET /{repo}/resolve/{revision}/{path}} answers with {@code X-Repo-Commit} and an {@code ETag};
 *       an LFS file ({@code .onnx}, {@code .onnx_data}, {@code .data}, or 1 MiB and more) answers 302 to a second
 *       loopback server (the CDN, another origin) with {@code X-Linked-Etag} (its SHA-256) and
 *       {@code X-Linked-Size}; a regular file is served directly with its git blob SHA-1 as ETag;
 *   <li>the CDN serves {@code Range} requests (206 + Content-Range, 416);
 *   <li>a private repository answers 401 without {@code Authorization: Bearer {token}}; an unknown repository,
 *       revision or file answers 404 with {@code X-Error-Code}.
 * </ul>
 *
 * <p>Faults can be injected once per file (cut, stall, corrupt, HTML page, short body). Every request is recorded
 * (never the token's value).
 */
public final class FakeHub implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-");
    private static final long LFS_THRESHOLD = 1L << 20;

    /**
     * One request as a server saw it.
     *
     * @param server {@code hub} or {@code cdn}
     * @param method HTTP method
     * @param path the request path (decoded)
     * @param range the Range header, or null
     * @param authorized whether an Authorization header was sent
     */
    public record Seen(String server, String method, String path, String range, boolean authorized) {}

    /** A fault injected into the next transfer of one file. */
    public enum Fault {
        /** The connection drops after the given number of body bytes. */
        CUT,
        /** The transfer goes silent after the given number of bytes until the client gives up. */
        STALL,
        /** The full length is sent, with one byte changed. */
        CORRUPT,
        /** A 200 answer with {@code Content-Type: text/html} and a small page instead of the file. */
        HTML,
        /** A 200 answer whose Content-Length and body are only the first half of the file. */
        SHORT
    }

    private record Blob(String path, byte[] content, boolean lfs, String sha256, String gitSha1) {
        String etag() {
            return lfs ? sha256 : gitSha1;
        }
    }

    private record Repo(
            String id, String commit, Map<String, String> branches, Map<String, Blob> files, String token) {}

    private record Injected(Fault fault, long bytes) {}

    private final HttpServer hub;
    private final HttpServer cdn;
    private final ExecutorService executor;
    private final Map<String, Repo> repos = new ConcurrentHashMap<>();
    private final Map<String, Blob> blobsBySha = new ConcurrentHashMap<>();
    private final Map<String, Injected> faults = new ConcurrentHashMap<>();
    private final List<Seen> requests = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final List<Interceptor> interceptors = new CopyOnWriteArrayList<>();

    /**
     * Answers some requests itself, before the hub's own handling: a hostile or broken server for one test (a file
     * list that stalls or drips, an HTML page, a rate limit, absurd sizes), or a check of what was sent.
     */
    @FunctionalInterface
    public interface Interceptor {
        /**
         * @param server {@code hub} or {@code cdn}
         * @param exchange the request (headers readable; answer it to handle it)
         * @return true when it answered, false to let the hub answer as usual
         * @throws IOException when answering fails
         */
        boolean handle(String server, HttpExchange exchange) throws IOException;
    }

    /**
     * Starts both servers on ephemeral loopback ports.
     *
     * @throws IOException when no port can be bound
     */
    public FakeHub() throws IOException {
        executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-hub");
            t.setDaemon(true);
            return t;
        });
        hub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        cdn = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        hub.createContext("/", ex -> handle(ex, this::hub));
        cdn.createContext("/", ex -> handle(ex, this::cdn));
        hub.setExecutor(executor);
        cdn.setExecutor(executor);
        hub.start();
        cdn.start();
    }

    /** @return the endpoint to give the client, {@code http://127.0.0.1:{port}} */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + hub.getAddress().getPort());
    }

    /**
     * Publishes a folder as a repository at one commit, reachable by the commit and by branch {@code main}.
     *
     * @param repo the repository id, {@code owner/name}
     * @param commit the commit id (40 hex digits)
     * @param folder the files (read now)
     * @return this
     */
    public FakeHub publish(String repo, String commit, Path folder) {
        return publish(repo, commit, folder, null);
    }

    /**
     * Publishes a private repository: every request needs {@code Authorization: Bearer {token}}.
     *
     * @param repo the repository id
     * @param commit the commit id
     * @param folder the files
     * @param token the token it accepts, or null for a public repository
     * @return this
     */
    public FakeHub publish(String repo, String commit, Path folder, String token) {
        Map<String, Blob> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.walk(folder)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                String rel = folder.relativize(p).toString().replace('\\', '/');
                byte[] content = Files.readAllBytes(p);
                boolean lfs = rel.endsWith(".onnx")
                        || rel.endsWith(".onnx_data")
                        || rel.endsWith(".data")
                        || content.length >= LFS_THRESHOLD;
                Blob b = new Blob(rel, content, lfs, sha256(content), gitSha1(content));
                files.put(rel, b);
                blobsBySha.put(b.sha256(), b);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        repos.put(repo, new Repo(repo, commit, Map.of("main", commit), files, token));
        return this;
    }

    /**
     * @param path a file path in a published repository
     * @param fault what goes wrong on its next transfer
     * @param bytes after how many bytes (for {@link Fault#CUT} and {@link Fault#STALL})
     */
    public void inject(String path, Fault fault, long bytes) {
        faults.put(path, new Injected(fault, bytes));
    }

    /**
     * @param repo a published repository
     * @param path one of its files
     * @return the ETag the hub gives it (SHA-256 for LFS files, git blob SHA-1 otherwise)
     */
    public String etag(String repo, String path) {
        return repos.get(repo).files().get(path).etag();
    }

    /**
     * @param interceptor consulted, in the order added, before every request is answered
     * @return this
     */
    public FakeHub intercept(Interceptor interceptor) {
        interceptors.add(interceptor);
        return this;
    }

    /**
     * Blocks until {@link #close()} (or 30 s): for an interceptor that stalls a transfer until the client gives
     * up.
     */
    public void awaitClosing() {
        awaitClose();
    }

    /**
     * @param repo a published repository
     * @return the commit it is at
     */
    public String commit(String repo) {
        return repos.get(repo).commit();
    }

    /** @return every request so far */
    public List<Seen> requests() {
        return List.copyOf(requests);
    }

    /** Forgets the recorded requests. */
    public void clearRequests() {
        requests.clear();
    }

    private interface Handler {
        void handle(HttpExchange ex, String path) throws IOException;
    }

    private void handle(HttpExchange ex, Handler handler) throws IOException {
        try (ex) {
            String path = URLDecoder.decode(ex.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
            requests.add(new Seen(
                    ex.getHttpContext().getServer() == hub ? "hub" : "cdn",
                    ex.getRequestMethod(),
                    path,
                    ex.getRequestHeaders().getFirst("Range"),
                    ex.getRequestHeaders().containsKey("Authorization")));
            String server = ex.getHttpContext().getServer() == hub ? "hub" : "cdn";
            for (Interceptor i : interceptors) {
                if (i.handle(server, ex)) {
                    return;
                }
            }
            handler.handle(ex, ex.getRequestURI().getRawPath());
        }
    }

    private void hub(HttpExchange ex, String rawPath) throws IOException {
        String[] seg = rawPath.substring(1).split("/", -1);
        if (seg.length >= 6 && seg[0].equals("api") && seg[1].equals("models") && seg[4].equals("revision")) {
            String repoId = seg[2] + "/" + seg[3];
            String rev =
                    URLDecoder.decode(String.join("/", List.of(seg).subList(5, seg.length)), StandardCharsets.UTF_8);
            Repo repo = authorized(ex, repoId);
            if (repo == null) {
                return;
            }
            String commit = commitOf(repo, rev);
            if (commit == null) {
                error(ex, 404, "RevisionNotFound", null);
                return;
            }
            listing(ex, repo);
            return;
        }
        if (seg.length >= 5 && seg[2].equals("resolve")) {
            String repoId = seg[0] + "/" + seg[1];
            Repo repo = authorized(ex, repoId);
            if (repo == null) {
                return;
            }
            String commit = commitOf(repo, URLDecoder.decode(seg[3], StandardCharsets.UTF_8));
            if (commit == null) {
                error(ex, 404, "RevisionNotFound", null);
                return;
            }
            String file =
                    URLDecoder.decode(String.join("/", List.of(seg).subList(4, seg.length)), StandardCharsets.UTF_8);
            Blob b = repo.files().get(file);
            ex.getResponseHeaders().add("X-Repo-Commit", commit);
            if (b == null) {
                error(ex, 404, "EntryNotFound", commit);
                return;
            }
            if (b.lfs()) {
                ex.getResponseHeaders().add("ETag", "\"" + b.gitSha1() + "\"");
                ex.getResponseHeaders().add("X-Linked-Etag", "\"" + b.sha256() + "\"");
                ex.getResponseHeaders().add("X-Linked-Size", Long.toString(b.content().length));
                ex.getResponseHeaders()
                        .add("Location", "http://127.0.0.1:" + cdn.getAddress().getPort() + "/cdn/" + b.sha256());
                ex.sendResponseHeaders(302, -1);
                return;
            }
            ex.getResponseHeaders().add("ETag", "\"" + b.gitSha1() + "\"");
            serve(ex, b);
            return;
        }
        error(ex, 404, "RepoNotFound", null);
    }

    private void cdn(HttpExchange ex, String rawPath) throws IOException {
        Blob b = rawPath.startsWith("/cdn/") ? blobsBySha.get(rawPath.substring(5)) : null;
        if (b == null) {
            ex.sendResponseHeaders(404, -1);
            return;
        }
        serve(ex, b);
    }

    private Repo authorized(HttpExchange ex, String repoId) throws IOException {
        Repo repo = repos.get(repoId);
        if (repo == null) {
            error(ex, 401, "RepoNotFound", null); // the hub answers 401 for unknown and private alike
            return null;
        }
        if (repo.token() != null
                && !("Bearer " + repo.token()).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
            error(ex, 401, "RepoNotFound", null);
            return null;
        }
        return repo;
    }

    private static String commitOf(Repo repo, String rev) {
        if (rev.equals(repo.commit())) {
            return repo.commit();
        }
        return repo.branches().get(rev);
    }

    private void listing(HttpExchange ex, Repo repo) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("id", repo.id());
        root.put("sha", repo.commit());
        ArrayNode siblings = root.putArray("siblings");
        for (Blob b : repo.files().values()) {
            ObjectNode s = siblings.addObject();
            s.put("rfilename", b.path());
            s.put("size", b.content().length);
            s.put("blobId", b.gitSha1());
            if (b.lfs()) {
                ObjectNode lfs = s.putObject("lfs");
                lfs.put("sha256", b.sha256());
                lfs.put("size", b.content().length);
                lfs.put("pointerSize", 134);
            }
        }
        byte[] body = json.writeValueAsBytes(root);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
    }

    private static void error(HttpExchange ex, int status, String code, String commit) throws IOException {
        ex.getResponseHeaders().add("X-Error-Code", code);
        if (commit != null) {
            ex.getResponseHeaders().set("X-Repo-Commit", commit);
        }
        ex.sendResponseHeaders(status, -1);
    }

    private void serve(HttpExchange ex, Blob b) throws IOException {
        byte[] content = b.content();
        boolean head = ex.getRequestMethod().equals("HEAD");
        Injected fault = head ? null : faults.remove(b.path());
        if (fault != null && fault.fault() == Fault.HTML) {
            byte[] page =
                    "<!DOCTYPE html><html><body>Sign in to continue</body></html>".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            return;
        }
        if (fault != null && fault.fault() == Fault.SHORT) {
            int half = content.length / 2;
            ex.getResponseHeaders().add("Content-Type", "application/octet-stream");
            ex.sendResponseHeaders(200, half);
            ex.getResponseBody().write(content, 0, half);
            return;
        }
        if (fault != null && fault.fault() == Fault.CORRUPT) {
            content = content.clone();
            content[content.length / 2] ^= 0x5A;
        }
        long start = 0;
        String range = ex.getRequestHeaders().getFirst("Range");
        ex.getResponseHeaders().add("Content-Type", "application/octet-stream");
        ex.getResponseHeaders().add("Accept-Ranges", "bytes");
        if (range != null) {
            Matcher m = RANGE.matcher(range);
            if (!m.matches()) {
                ex.sendResponseHeaders(400, -1);
                return;
            }
            start = Long.parseLong(m.group(1));
            if (start >= content.length) {
                ex.getResponseHeaders().add("Content-Range", "bytes */" + content.length);
                ex.sendResponseHeaders(416, -1);
                return;
            }
            ex.getResponseHeaders()
                    .add("Content-Range", "bytes " + start + "-" + (content.length - 1) + "/" + content.length);
        }
        long length = content.length - start;
        if (head) {
            ex.getResponseHeaders().add("Content-Length", Long.toString(length));
            ex.sendResponseHeaders(range != null ? 206 : 200, -1);
            return;
        }
        ex.sendResponseHeaders(range != null ? 206 : 200, length);
        OutputStream body = ex.getResponseBody();
        boolean cut = fault != null && (fault.fault() == Fault.CUT || fault.fault() == Fault.STALL);
        long limit = cut ? Math.min(fault.bytes(), length) : length;
        body.write(content, (int) start, (int) limit);
        body.flush();
        if (cut) {
            if (fault.fault() == Fault.STALL) {
                awaitClose();
            }
            throw new IOException("fault injected: connection dropped after " + limit + " of " + length + " bytes");
        }
        body.write(content, (int) (start + limit), (int) (length - limit));
    }

    private void awaitClose() {
        try {
            closing.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * @param content bytes
     * @return their SHA-256, lower-case hex
     */
    public static String sha256(byte[] content) {
        return hex("SHA-256", new byte[0], content);
    }

    /**
     * @param content bytes
     * @return their git blob SHA-1 ({@code sha1("blob " + length + "\0" + content)}), lower-case hex
     */
    public static String gitSha1(byte[] content) {
        return hex("SHA-1", ("blob " + content.length + "\0").getBytes(StandardCharsets.US_ASCII), content);
    }

    private static String hex(String algorithm, byte[] prefix, byte[] content) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            md.update(prefix);
            md.update(content);
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops both servers and releases stalled transfers. */
    @Override
    public void close() {
        closing.countDown();
        hub.stop(0);
        cdn.stop(0);
        executor.shutdownNow();
    }
}
