package dev.flux2.server;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.PngFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code POST /v1/images} (the PNG shortcut): JSON in ({@link ImageRequestBody}, strictly typed), PNG out (with its parameters in text
 * chunks and the seed in {@code X-Flux2-Seed}). 400 for a bad body or a request beyond the limits, 408 for a body
 * that does not arrive in time, 413 for a body (or a declared {@code Content-Length}) over the cap, 429 when the
 * queue is full, 504 when the request timed out (the generation is cancelled), 503 while shutting down, 500 when the
 * generation failed. A request whose client hangs up is dropped from the queue, or its generation cancelled.
 */
final class ImagesHandler implements Route {
    static final String PATH = "/v1/images";

    private final GenerationQueue queue;
    private final BodyBudget budget;
    private final ServiceConfig config;
    private final ServerMetrics metrics;

    ImagesHandler(GenerationQueue queue, BodyBudget budget, ServiceConfig config, ServerMetrics metrics) {
        this.queue = queue;
        this.budget = budget;
        this.config = config;
        this.metrics = metrics;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) throws IOException {
        if (!"POST".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "POST");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts POST only");
            return;
        }
        try (QueueAnswers.Admitted admitted = QueueAnswers.admitAndRead(
                queue, budget, request, response, callback, config.maxBodyBytes(), config.bodyTimeout(), false)) {
            if (admitted == null) {
                return;
            }
            GenerationRequest generation;
            try {
                byte[] body = admitted.body();
                Utf8.check(body, "the request body");
                ImageRequestBody parsed = ImageRequestBody.parse(body);
                if (parsed.prompt() != null) {
                    Utf8.checkText(parsed.prompt(), "prompt");
                }
                generation = parsed.toRequest().limits(config.limits()).build();
                config.limits().checkRequest(generation);
            } catch (InvalidRequestException e) {
                admitted.close(); // before answering: the client's next request must find the slot free
                HttpExchanges.sendError(response, callback, 400, e.getMessage());
                return;
            } catch (ApiError e) {
                admitted.close();
                HttpExchanges.sendError(response, callback, e);
                return;
            }
            generate(admitted, request, response, callback, generation);
        }
    }

    private void generate(
            QueueAnswers.Admitted admitted,
            Request request,
            Response response,
            Callback callback,
            GenerationRequest generation)
            throws IOException {
        GenerationResult result = QueueAnswers.run(queue, metrics, admitted, generation, request, response, callback);
        if (result == null) {
            return;
        }
        GeneratedImage image = result.first();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        PngFiles.write(image, png);
        image.metadata().seed().ifPresent(s -> response.getHeaders().put("X-Flux2-Seed", Long.toString(s)));
        response.getHeaders()
                .put("X-Flux2-Steps", Integer.toString(image.metadata().steps()));
        response.getHeaders()
                .put("X-Flux2-Time-Ms", Long.toString(result.timings().total().toMillis()));
        HttpExchanges.send(response, callback, 200, "image/png", png.toByteArray());
    }
}
