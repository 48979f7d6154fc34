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
        ByteArrayOutputStream body = new ByteArrayOutputStream();
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
                if (body.size() + bytes.remaining() > maxBytes) {
                    throw new TooLargeException("request body larger than " + maxBytes + " bytes");
                }
                byte[] copy = new byte[bytes.remaining()];
                bytes.get(copy);
                body.write(copy);
                if (chunk.isLast()) {
                    return body.toByteArray();
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
        ObjectNode body = JSON.createObjectNode();
        ObjectNode e = body.putObject("error");
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
        sendJson(response, callback, error.status(), body);
    }

    private static String defaultCode(int status) {
        return switch (status) {
            case 400 -> "invalid_request";
            case 401 -> "invalid_api_key";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 413 -> "request_too_large";
            case 415 -> "unsupported_media_type";
            case 429 -> "rate_limit_exceeded";
            case 499 -> "client_closed_request";
            case 503 -> "service_unavailable";
            case 504 -> "generation_timeout";
            default -> "server_error";
        };
    }

    static void send(Response response, Callback callback, int status, String contentType, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
