package dev.flux2.examples.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/** {@code GET /health}: 200 with the model, the admission limits and the counters since start. */
final class HealthHandler implements HttpHandler {
    static final String PATH = "/health";

    private final ServiceConfig config;
    private final ServiceStats stats;

    HealthHandler(ServiceConfig config, ServiceStats stats) {
        this.config = config;
        this.stats = stats;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!PATH.equals(ex.getRequestURI().getPath())) {
                HttpExchanges.sendError(
                        ex, 404, "no resource " + ex.getRequestURI().getPath());
                return;
            }
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                HttpExchanges.sendError(ex, 405, PATH + " accepts GET only");
                return;
            }
            ObjectNode body = HttpExchanges.JSON.createObjectNode();
            body.put("status", "ok");
            body.put("model", config.modelLabel());
            body.put("workers", config.workers());
            body.put("queue_capacity", config.queueCapacity());
            body.put("timeout_ms", config.requestTimeout().toMillis());
            body.put("running", stats.running.get());
            body.put("waiting", stats.waiting.get());
            body.put("completed", stats.completed.get());
            body.put("failed", stats.failed.get());
            body.put("cancelled", stats.cancelled.get());
            body.put("rejected", stats.rejected.get());
            body.put("timed_out", stats.timedOut.get());
            HttpExchanges.sendJson(ex, 200, body);
        }
    }
}
