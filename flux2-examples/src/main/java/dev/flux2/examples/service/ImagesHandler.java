package dev.flux2.examples.service;

import dev.flux2.api.CancellationToken;
import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationCancelledException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/images}: JSON in ({@link ImageRequestBody}, strictly typed), PNG out (with its parameters in text
 * chunks and the seed in {@code X-Flux2-Seed}). 400 for a bad body or a request beyond the limits, 408 for a body
 * that does not arrive in time, 413 for a body (or a declared {@code Content-Length}) over the cap, 429 when the
 * queue is full, 504 when the request timed out (the generation is cancelled), 503 while shutting down, 500 when the
 * generation failed. A request whose client hangs up is dropped from the queue, or its generation cancelled.
 */
final class ImagesHandler implements Route {
    static final String PATH = "/v1/images";
    private static final Logger LOG = LoggerFactory.getLogger(ImagesHandler.class);

    private final GenerationQueue queue;
    private final ServiceConfig config;

    ImagesHandler(GenerationQueue queue, ServiceConfig config) {
        this.queue = queue;
        this.config = config;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) throws IOException {
        if (!"POST".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "POST");
            HttpExchanges.sendError(response, callback, 405, PATH + " accepts POST only");
            return;
        }
        long declared = request.getLength();
        if (declared > config.maxBodyBytes()) {
            // Answered from the header: nothing of the body is read, and the connection is closed after the answer.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(
                    response,
                    callback,
                    413,
                    "Content-Length " + declared + " exceeds the limit of " + config.maxBodyBytes() + " bytes");
            return;
        }
        byte[] body;
        try {
            body = HttpExchanges.readBody(request, config.maxBodyBytes(), config.bodyTimeout());
        } catch (HttpExchanges.TooLargeException e) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(response, callback, 413, e.getMessage());
            return;
        } catch (HttpExchanges.SlowBodyException e) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(response, callback, 408, e.getMessage());
            return;
        }
        GenerationRequest generation;
        try {
            generation = ImageRequestBody.parse(body)
                    .toRequest()
                    .limits(config.limits())
                    .cancellation(new CancellationToken())
                    .build();
            config.limits().checkRequest(generation);
        } catch (InvalidRequestException e) {
            HttpExchanges.sendError(response, callback, 400, e.getMessage());
            return;
        }
        generate(request, response, callback, generation);
    }

    private void generate(Request request, Response response, Callback callback, GenerationRequest generation)
            throws IOException {
        GenerationResult result;
        try {
            result = queue.run(generation, () -> HttpExchanges.clientGone(request, response));
        } catch (GenerationQueue.QueueFullException e) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            HttpExchanges.sendError(response, callback, 429, e.getMessage());
            return;
        } catch (GenerationQueue.TimedOutException e) {
            HttpExchanges.sendError(response, callback, 504, e.getMessage());
            return;
        } catch (GenerationQueue.AbandonedException e) {
            // Nobody is listening; the answer only lets Jetty finish the exchange.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(response, callback, 499, e.getMessage());
            return;
        } catch (GenerationQueue.ClosedException | GenerationCancelledException e) {
            HttpExchanges.sendError(response, callback, 503, "the service is shutting down: " + e.getMessage());
            return;
        } catch (InvalidRequestException e) {
            HttpExchanges.sendError(response, callback, 400, e.getMessage());
            return;
        } catch (Flux2Exception e) {
            LOG.warn("generation failed: {}", e.getMessage(), e);
            HttpExchanges.sendError(response, callback, 500, e.getMessage());
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
