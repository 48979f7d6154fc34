package dev.flux2.server;

import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /metrics}: the {@link ServerMetrics} in Prometheus' text format. */
final class MetricsHandler implements Route {
    static final String PATH = "/metrics";
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final ServerMetrics metrics;

    MetricsHandler(ServerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        if (!"GET".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts GET only");
            return;
        }
        HttpExchanges.send(
                response, callback, 200, CONTENT_TYPE, metrics.scrape().getBytes(StandardCharsets.UTF_8));
    }
}
