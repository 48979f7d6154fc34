package dev.flux2.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Small helpers over Jetty's core API: bounded body reads with a deadline, JSON and binary answers. */
final class HttpExchanges {
    static final ObjectMapper JSON = new ObjectMapper();

    private HttpExchanges() {}

    /** The body was larger than allowed. */
    static final class TooLargeException extends Exception {
        private static final long serialVersionUID = 1L;

        TooLargeException(String message) {
            super(message);
        }
    }

    /** The body did not arrive in time. */
    static final class SlowBodyException extends Exception {
        private static final long serialVersionUID = 1L;

        SlowBodyException(String message) {
            super(message);
        }
    }

    /**
     * Reads the whole body, without blocking longer than {@code timeout} in total.
     *
     * @param request the request
     * @param maxBytes the largest body accepted
     * @param timeout the time the whole body may take
     * @return the body
     * @throws TooLargeException when more than {@code maxBytes} arrive
     * @throws SlowBodyException when the body is not complete within {@code timeout}
     * @throws IOException when the connection fails
     */
    static byte[] readBody(Request request, int maxBytes, Duration timeout)
            throws TooLargeException, SlowBodyException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long declared = request.getLength();
        // With a Content-Length (within maxBytes, checked by the caller) the body goes straight into one array of
        // that size: no growing buffer and no final copy, so a body costs its own size in the heap.
        byte[] exact = declared >= 0 && declared <= maxBytes ? new byte[(int) declared] : null;
        ByteArrayOutputStream grown = exact == null ? new ByteArrayOutputStream() : null;
        int filled = 0;
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                CompletableFuture<Void> ready = new CompletableFuture<>();
                request.demand(() -> ready.complete(null));
                long left = deadline - System.nanoTime();
                try {
                    ready.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    throw new SlowBodyException("the request body did not arrive within " + timeout.toMillis() + " ms");
                } catch (ExecutionException e) {
                    throw new IOException("reading the request body failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while reading the request body", e);
                }
                continue;
            }
            try {
                if (Content.Chunk.isFailure(chunk)) {
                    Throwable failure = chunk.getFailure();
                    throw new IOException("reading the request body failed: " + failure, failure);
                }
                ByteBuffer bytes = chunk.getByteBuffer();
                int n = bytes.remaining();
                if ((long) filled + n > maxBytes) {
                    throw new TooLargeException("request body larger than " + maxBytes + " bytes");
                }
                if (exact != null) {
                    if (filled + n > exact.length) {
                        throw new IOException("the request body is longer than its Content-Length " + exact.length);
                    }
                    bytes.get(exact, filled, n);
                } else {
                    byte[] copy = new byte[n];
                    bytes.get(copy);
                    grown.write(copy);
                }
                filled += n;
                if (chunk.isLast()) {
                    return exact != null ? exact : grown.toByteArray();
                }
            } finally {
                chunk.release();
            }
        }
    }

    /**
     * Whether the client has closed its side of the connection, checked without blocking: a read of the socket
     * returns end of stream. Only valid once the request body is consumed (Jetty then reads nothing itself until the
     * answer is sent). Bytes a client pipelined are consumed by the probe, so the answer then closes the
     * connection.
     *
     * @param request the request
     * @param response its response (marked {@code Connection: close} when the probe consumed bytes)
     * @return true when the client is gone
     */
    static boolean clientGone(Request request, Response response) {
        EndPoint endPoint = request.getConnectionMetaData().getConnection().getEndPoint();
        if (!endPoint.isOpen() || endPoint.isInputShutdown()) {
            return true;
        }
        try {
            ByteBuffer probe = ByteBuffer.allocate(256);
            probe.flip();
            int n = endPoint.fill(probe);
            if (n > 0) {
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            return n < 0;
        } catch (IOException e) {
            return true;
        }
    }

    static void sendJson(Response response, Callback callback, int status, ObjectNode body) {
        try {
            send(response, callback, status, "application/json; charset=utf-8", JSON.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Answers in OpenAI's error shape with a code derived from the status. */
    static void sendError(Response response, Callback callback, int status, String message) {
        sendError(response, callback, new ApiError(status, message, null, defaultCode(status)));
    }

    /** Answers {@code {"error": {"message", "type", "param", "code"}}} with the error's status. */
    static void sendError(Response response, Callback callback, ApiError error) {
        send(response, callback, error.status(), "application/json; charset=utf-8", errorBody(error));
    }

    /** @return {@code {"error": {"message", "type", "param", "code"}}} as UTF-8 JSON */
    static byte[] errorBody(ApiError error) {
        ObjectNode body = JSON.createObjectNode();
        body.set("error", errorObject(error));
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return OpenAI's error object {@code {"message", "type", "param", "code"}} (also a stream's error event's) */
    static ObjectNode errorObject(ApiError error) {
        ObjectNode e = JSON.createObjectNode();
        e.put("message", error.getMessage());
        e.put("type", ApiError.typeOf(error.status()));
        if (error.param() == null) {
            e.putNull("param");
        } else {
            e.put("param", error.param());
        }
        if (error.code() == null) {
            e.putNull("code");
        } else {
            e.put("code", error.code());
        }
        return e;
    }

    static String defaultCode(int status) {
        return switch (status) {
            case 400 -> "invalid_request";
            case 401 -> "invalid_api_key";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 413 -> "request_too_large";
            case 414 -> "uri_too_long";
            case 415 -> "unsupported_media_type";
            case 429 -> "rate_limit_exceeded";
            case 431 -> "headers_too_large";
            case 499 -> "client_closed_request";
            case 503 -> "service_unavailable";
            case 504 -> "generation_timeout";
            default -> status < 500 ? "invalid_request" : "server_error";
        };
    }

    static void send(Response response, Callback callback, int status, String contentType, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
