package dev.flux2.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /v1/models} (OpenAI's list shape, the one served model) and {@code GET /v1/models/ID}. */
final class ModelsHandler implements Route {
    static final String PATH = "/v1/models";

    private final ServiceConfig config;
    private final long created = System.currentTimeMillis() / 1000;

    ModelsHandler(ServiceConfig config) {
        this.config = config;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) {
        if (!"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts GET only");
            return;
        }
        String path = ApiPaths.canonical(Request.getPathInContext(request));
        if (path.equals(PATH)) {
            ObjectNode body = HttpExchanges.JSON.createObjectNode();
            body.put("object", "list");
            body.putArray("data").add(model());
            HttpExchanges.sendJson(response, callback, 200, body);
        } else if (path.equals(PATH + "/" + config.modelName())) {
            HttpExchanges.sendJson(response, callback, 200, model());
        } else {
            HttpExchanges.sendError(
                    response,
                    callback,
                    new ApiError(
                            404,
                            "the model '" + OpenAiImageRequest.shortened(path.substring(PATH.length() + 1))
                                    + "' does not exist; this server serves '" + config.modelName() + "'",
                            "model",
                            "model_not_found"));
        }
    }

    private ObjectNode model() {
        ObjectNode m = HttpExchanges.JSON.createObjectNode();
        m.put("id", config.modelName());
        m.put("object", "model");
        m.put("created", created);
        m.put("owned_by", "flux2-java");
        return m;
    }
}
