package dev.flux2.server;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The images of {@code "response_format": "url"} answers, kept in memory for a bounded time and number (the oldest
 * is dropped first) and served at {@code GET /v1/images/files/ID.png}. The id is 128 random bits: the URL itself is
 * the credential (as OpenAI's signed URLs), so fetching it needs no API key. Thread-safe.
 */
final class ImageStore implements Route {
    static final String PREFIX = "/v1/images/files/";
    static final int MAX_IMAGES = 64;
    static final Duration TTL = Duration.ofMinutes(10);

    private record Entry(byte[] bytes, String contentType, long expiresNanos) {}

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Entry> images = new LinkedHashMap<>();

    /** @return the path of the stored image */
    synchronized String put(byte[] bytes, String extension, String contentType) {
        expire();
        while (images.size() >= MAX_IMAGES) {
            Iterator<String> oldest = images.keySet().iterator();
            oldest.next();
            oldest.remove();
        }
        byte[] id = new byte[16];
        random.nextBytes(id);
        String name = HexFormat.of().formatHex(id) + "." + extension;
        images.put(name, new Entry(bytes, contentType, System.nanoTime() + TTL.toNanos()));
        return PREFIX + name;
    }

    private synchronized Entry get(String name) {
        expire();
        return images.get(name);
    }

    private void expire() {
        long now = System.nanoTime();
        images.values().removeIf(e -> now - e.expiresNanos() > 0);
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        if (!"GET".equals(request.getMethod())) {
            response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.ALLOW, "GET");
            HttpExchanges.sendError(response, callback, 405, PREFIX + "* accepts GET only");
            return;
        }
        String path = ApiPaths.canonical(Request.getPathInContext(request));
        Entry e = get(path.substring(PREFIX.length()));
        if (e == null) {
            HttpExchanges.sendError(
                    response,
                    callback,
                    404,
                    "no image " + path + " (image URLs are kept " + TTL.toMinutes() + " minutes, at most " + MAX_IMAGES
                            + " images)");
            return;
        }
        HttpExchanges.send(response, callback, 200, e.contentType(), e.bytes());
    }
}
