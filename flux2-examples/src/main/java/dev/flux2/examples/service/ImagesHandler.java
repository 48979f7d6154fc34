package dev.flux2.examples.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
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
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /v1/images}: JSON in ({@link ImageRequestBody}), PNG out (with its parameters in text chunks and the
 * seed in {@code X-Flux2-Seed}). 400 for a bad body, 413 for a huge one, 429 when the queue is full, 504 when the
 * request timed out (the generation is cancelled), 503 while shutting down, 500 when the generation failed.
 */
final class ImagesHandler implements HttpHandler {
    static final String PATH = "/v1/images";
    private static final Logger LOG = LoggerFactory.getLogger(ImagesHandler.class);
    private static final int MAX_BODY = 64 * 1024;
    private static final ObjectReader BODY_READER = HttpExchanges.JSON
            .readerFor(ImageRequestBody.class)
            .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final GenerationQueue queue;

    ImagesHandler(GenerationQueue queue) {
        this.queue = queue;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!PATH.equals(ex.getRequestURI().getPath())) {
                HttpExchanges.sendError(
                        ex, 404, "no resource " + ex.getRequestURI().getPath());
                return;
            }
            if (!"POST".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "POST");
                HttpExchanges.sendError(ex, 405, PATH + " accepts POST only");
                return;
            }
            Optional<byte[]> body = HttpExchanges.readBody(ex, MAX_BODY);
            if (body.isEmpty()) {
                HttpExchanges.sendError(ex, 413, "request body larger than " + MAX_BODY + " bytes");
                return;
            }
            GenerationRequest request;
            try {
                ImageRequestBody parsed = BODY_READER.readValue(body.get());
                request =
                        parsed.toRequest().cancellation(new CancellationToken()).build();
            } catch (JsonProcessingException e) {
                HttpExchanges.sendError(
                        ex,
                        400,
                        "body must be a JSON object like {\"prompt\": \"...\", "
                                + "\"width\": 512, \"height\": 512, \"seed\": 42, \"steps\": 4}: "
                                + e.getOriginalMessage());
                return;
            } catch (InvalidRequestException e) {
                HttpExchanges.sendError(ex, 400, e.getMessage());
                return;
            }
            generate(ex, request);
        }
    }

    private void generate(HttpExchange ex, GenerationRequest request) throws IOException {
        GenerationResult result;
        try {
            result = queue.run(request);
        } catch (GenerationQueue.QueueFullException e) {
            ex.getResponseHeaders().set("Retry-After", "1");
            HttpExchanges.sendError(ex, 429, e.getMessage());
            return;
        } catch (GenerationQueue.TimedOutException e) {
            HttpExchanges.sendError(ex, 504, e.getMessage());
            return;
        } catch (GenerationQueue.ClosedException | GenerationCancelledException e) {
            HttpExchanges.sendError(ex, 503, "the service is shutting down: " + e.getMessage());
            return;
        } catch (InvalidRequestException e) {
            HttpExchanges.sendError(ex, 400, e.getMessage());
            return;
        } catch (Flux2Exception e) {
            LOG.warn("generation failed: {}", e.getMessage(), e);
            HttpExchanges.sendError(ex, 500, e.getMessage());
            return;
        }
        GeneratedImage image = result.first();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        PngFiles.write(image, png);
        image.metadata().seed().ifPresent(s -> ex.getResponseHeaders().set("X-Flux2-Seed", Long.toString(s)));
        ex.getResponseHeaders()
                .set("X-Flux2-Steps", Integer.toString(image.metadata().steps()));
        ex.getResponseHeaders()
                .set("X-Flux2-Time-Ms", Long.toString(result.timings().total().toMillis()));
        HttpExchanges.send(ex, 200, "image/png", png.toByteArray());
    }
}
