package dev.flux2.examples.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A miniature Hugging Face "resolve" endpoint on 127.0.0.1 serving one folder as {@code repo@revision}, the way the
 * hub does: {@code /{repo}/resolve/{revision}/{path}} answers 302 to a {@code /cdn/...} URL, which serves the bytes
 * with {@code Range} support (206 + Content-Range, 416). Faults can be injected per file: cut the connection after
 * n bytes (once), or stall after n bytes (once). Every request is recorded.
 */
public final class LoopbackHubServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-");

    /**
     * One request as the server saw it.
     *
     * @param method HTTP method
     * @param path request path
     * @param range the Range header, or null
     */
    public record Seen(String method, String path, String range) {}

    private final HttpServer server;
    private final Path root;
    private final String repo;
    private final String revision;
    private final List<Seen> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Long> cutAfter = new ConcurrentHashMap<>();
    private final Map<String, Long> stallAfter = new ConcurrentHashMap<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    /**
     * Starts serving.
     *
     * @param root the folder to serve as the repository
     * @param repo the repository id in URLs
     * @param revision the revision in URLs
     * @throws IOException when no loopback port can be bound
     */
    public LoopbackHubServer(Path root, String repo, String revision) throws IOException {
        this.root = root;
        this.repo = repo;
        this.revision = revision;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "loopback-hub");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    /** @return the endpoint to give the downloader */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** @return every request so far */
    public List<Seen> requests() {
        return List.copyOf(requests);
    }

    /**
     * @param path a file path in the repo
     * @param bytes the next transfer of it stops (connection closed) after this many body bytes
     */
    public void cutOnceAfter(String path, long bytes) {
        cutAfter.put(path, bytes);
    }

    /**
     * @param path a file path in the repo
     * @param bytes the next transfer of it goes silent after this many body bytes (until the client gives up)
     */
    public void stallOnceAfter(String path, long bytes) {
        stallAfter.put(path, bytes);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String uriPath = ex.getRequestURI().getPath();
            requests.add(new Seen(
                    ex.getRequestMethod(), uriPath, ex.getRequestHeaders().getFirst("Range")));
            String resolvePrefix = "/" + repo + "/resolve/" + revision + "/";
            if (uriPath.startsWith(resolvePrefix)) {
                // The hub redirects file downloads to its CDN.
                ex.getResponseHeaders().add("Location", "/cdn/" + uriPath.substring(resolvePrefix.length()));
                ex.sendResponseHeaders(302, -1);
                return;
            }
            if (!uriPath.startsWith("/cdn/")) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            String path = uriPath.substring("/cdn/".length());
            Path file = root.resolve(path).normalize();
            if (!file.startsWith(root) || !Files.isRegularFile(file)) {
                ex.sendResponseHeaders(404, -1);
                return;
            }
            serve(ex, path, Files.readAllBytes(file));
        }
    }

    private void serve(HttpExchange ex, String path, byte[] content) throws IOException {
        long start = 0;
        String range = ex.getRequestHeaders().getFirst("Range");
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
        ex.sendResponseHeaders(range != null ? 206 : 200, length);
        Long cut = cutAfter.remove(path);
        Long stall = stallAfter.remove(path);
        OutputStream body = ex.getResponseBody();
        long limit = cut != null ? Math.min(cut, length) : stall != null ? Math.min(stall, length) : length;
        body.write(content, (int) start, (int) limit);
        body.flush();
        if (stall != null) {
            awaitClose();
        }
        if (cut != null || stall != null) {
            // Drop the connection mid-body: the client sees fewer bytes than Content-Length.
            throw new IOException(
                    "fault injected: connection dropped after " + limit + " of " + length + " bytes of " + path);
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

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
    }
}
