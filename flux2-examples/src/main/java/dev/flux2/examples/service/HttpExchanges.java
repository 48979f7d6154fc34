package dev.flux2.examples.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;

/** Small helpers to read bounded request bodies and send JSON or binary answers. */
final class HttpExchanges {
    static final ObjectMapper JSON = new ObjectMapper();

    private HttpExchanges() {}

    /**
     * @param ex the exchange
     * @param maxBytes the largest body accepted
     * @return the body, or empty when it is larger than {@code maxBytes}
     * @throws IOException when the connection fails
     */
    static Optional<byte[]> readBody(HttpExchange ex, int maxBytes) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (InputStream in = ex.getRequestBody()) {
            byte[] chunk = new byte[8192];
            int n;
            while ((n = in.read(chunk)) >= 0) {
                if (buf.size() + n > maxBytes) {
                    return Optional.empty();
                }
                buf.write(chunk, 0, n);
            }
        }
        return Optional.of(buf.toByteArray());
    }

    static void sendJson(HttpExchange ex, int status, ObjectNode body) throws IOException {
        send(ex, status, "application/json; charset=utf-8", JSON.writeValueAsBytes(body));
    }

    static void sendError(HttpExchange ex, int status, String message) throws IOException {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", status);
        body.put("error", message);
        sendJson(ex, status, body);
    }

    static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
