package dev.flux2.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * A {@code text/event-stream} answer written event by event ({@code event: NAME} and one {@code data:} line of JSON,
 * then a blank line), with blocking writes from one thread at a time. The status and headers go out with the first
 * event, so that whatever fails before it can still be answered with an HTTP status; after it, a failure can only be
 * an {@code error} event. A write that fails marks the stream failed: its client is gone.
 */
final class EventStream {
    private final Response response;
    private boolean committed;
    private volatile boolean failed;

    /** @param response the answer to write; nothing is sent until the first event */
    EventStream(Response response) {
        this.response = response;
    }

    /** @return whether the first event was sent (the status is 200 and fixed) */
    boolean committed() {
        return committed;
    }

    /** @return whether a write failed (the client hung up) */
    boolean failed() {
        return failed;
    }

    /**
     * Sends one event and waits until it is written.
     *
     * @param event the event's name
     * @param data its JSON object
     * @throws IOException when the client is gone
     */
    void send(String event, ObjectNode data) throws IOException {
        if (failed) {
            throw new IOException("the event stream's client is gone");
        }
        byte[] json;
        try {
            json = HttpExchanges.JSON.writeValueAsBytes(data);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the event " + event, e);
        }
        byte[] head = ("event: " + event + "\ndata: ").getBytes(StandardCharsets.UTF_8);
        ByteBuffer bytes = ByteBuffer.allocate(head.length + json.length + 2);
        bytes.put(head).put(json).put((byte) '\n').put((byte) '\n').flip();
        if (!committed) {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
            response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
            // reverse proxies that buffer (nginx) would hold the partial images back
            response.getHeaders().put("X-Accel-Buffering", "no");
            committed = true;
        }
        try (Blocker.Callback blocker = Blocker.callback()) {
            response.write(false, bytes, blocker);
            blocker.block();
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /**
     * Sends a comment line, which clients ignore, so that a proxy does not close a stream that is silent for a long
     * denoising step. Nothing is sent before the first event.
     *
     * @throws IOException when the client is gone
     */
    void keepAlive() throws IOException {
        if (!committed || failed) {
            return;
        }
        try (Blocker.Callback blocker = Blocker.callback()) {
            response.write(false, ByteBuffer.wrap(": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII)), blocker);
            blocker.block();
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /**
     * Ends the stream.
     *
     * @param callback the exchange's callback, completed when the end is written
     */
    void end(Callback callback) {
        response.write(true, ByteBuffer.allocate(0), callback);
    }
}
