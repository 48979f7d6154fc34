package dev.flux2.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code GET /health}: 200 with the model, the admission limits, the counters since start and the request bodies held
 * in memory (now, at most so far, the budget).
 */
final class HealthHandler implements Route {
    static final String PATH = "/health";

    private final ServiceConfig config;
    private final ServiceStats stats;
    private final BodyBudget budget;

    HealthHandler(ServiceConfig config, ServiceStats stats, BodyBudget budget) {
        this.config = config;
        this.stats = stats;
        this.budget = budget;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        if (!"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts GET only");
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
        body.put("abandoned", stats.abandoned.get());
        body.put("body_bytes_held", budget.held());
        body.put("body_bytes_peak", budget.peak());
        body.put("body_bytes_budget", budget.total());
        HttpExchanges.sendJson(response, callback, 200, body);
    }
}
