package dev.flux2.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /}: the playground, one self-contained page (HTML with inline CSS and JavaScript, the resource
 * {@code ui/index.html} in this jar; nothing from elsewhere) that calls this server's own OpenAI routes with streaming
 * (docs/server.md, "The playground page"). It needs no key and holds no secret: the page asks for the key when the API
 * answers 401 and keeps it in the tab's sessionStorage. Its Content-Security-Policy lets it load and call nothing but
 * this origin. Off with {@code flux2 serve --no-ui} ({@link ServiceConfig#ui()}).
 */
final class PlaygroundPage implements Route {
    static final String PATH = "/";
    private static final String RESOURCE = "ui/index.html";
    private static final String POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline';"
            + " img-src data: blob:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

    private final byte[] page;

    PlaygroundPage() {
        try (InputStream in = PlaygroundPage.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the playground page " + RESOURCE + " is missing from the jar");
            }
            this.page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the playground page " + RESOURCE, e);
        }
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts GET only");
            return;
        }
        response.getHeaders().put("Content-Security-Policy", POLICY);
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        HttpExchanges.send(
                response, callback, 200, "text/html; charset=utf-8", "HEAD".equals(method) ? new byte[0] : page);
    }
}
