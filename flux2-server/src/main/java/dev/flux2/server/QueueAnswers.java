package dev.flux2.server;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import java.time.Duration;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a queued generation's outcome becomes an HTTP answer, shared by the PNG shortcut and the
 * OpenAI routes: 429 with {@code Retry-After}, 504 on timeout, 499 when the client left, 503 while shutting down,
 * 400 for a request the pipeline refused, 500 for a failure; and the same admission before the body is read (429)
 * and bounded body read (413, 408).
 */
final class QueueAnswers {
    private static final Logger LOG = LoggerFactory.getLogger(QueueAnswers.class);

    private QueueAnswers() {}

    /**
     * A request admitted to the queue with its body read: the slot and the body's bytes in the budget are held until
     * closed (or, for the slot, until the generation it is handed to ends).
     *
     * @param slot the queue slot
     * @param reservation the body's bytes in the budget
     * @param body the body
     */
    record Admitted(GenerationQueue.Admission slot, BodyBudget.Reservation reservation, byte[] body)
            implements AutoCloseable {
        /** Releases the slot (unless a run took it) and the bytes; idempotent. Call before answering. */
        @Override
        public void close() {
            reservation.close();
            slot.close();
        }
    }

    /**
     * Decides what can be decided before the body is read, then reads it: a declared {@code Content-Length} over
     * {@code maxBytes} is 413; a body that the budget of bodies held at once cannot take now is 429; with
     * {@code admitFirst} (uploads: megabytes each) a full queue is 429 before a byte is read, else (small JSON
     * bodies, so that a client trickling one cannot hold a queue slot) once the body is in; the body is read within
     * {@code maxBytes} (413) and the body timeout (408). An answer given before the body is read closes the
     * connection.
     *
     * @return the admitted request, to close when answered; or null when the exchange was answered
     */
    static Admitted admitAndRead(
            GenerationQueue queue,
            BodyBudget budget,
            Request request,
            Response response,
            Callback callback,
            int maxBytes,
            Duration timeout,
            boolean admitFirst)
            throws java.io.IOException {
        long declared = request.getLength();
        if (declared > maxBytes) {
            // Answered from the header: nothing of the body is read, and the connection is closed after the answer.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(
                    response,
                    callback,
                    413,
                    "Content-Length " + declared + " exceeds the limit of " + maxBytes + " bytes");
            return null;
        }
        long reserve = declared >= 0 ? declared : maxBytes;
        BodyBudget.Reservation reservation = budget.tryReserve(reserve);
        if (reservation == null) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            HttpExchanges.sendError(
                    response,
                    callback,
                    429,
                    "the request bodies being handled already hold most of the " + budget.total() + " bytes the"
                            + " server buffers at once; this body of " + reserve + " bytes does not fit now, retry"
                            + " later");
            return null;
        }
        GenerationQueue.Admission slot = null;
        if (admitFirst) {
            slot = admit(queue, reservation, response, callback);
            if (slot == null) {
                return null;
            }
        }
        byte[] body;
        try {
            body = HttpExchanges.readBody(request, maxBytes, timeout);
        } catch (HttpExchanges.TooLargeException | HttpExchanges.SlowBodyException | java.io.IOException e) {
            release(reservation, slot);
            if (e instanceof java.io.IOException io) {
                throw io;
            }
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(
                    response, callback, e instanceof HttpExchanges.TooLargeException ? 413 : 408, e.getMessage());
            return null;
        } catch (RuntimeException | Error e) {
            release(reservation, slot);
            throw e;
        }
        if (!admitFirst) {
            slot = admit(queue, reservation, response, callback);
            if (slot == null) {
                return null;
            }
        }
        return new Admitted(slot, reservation, body);
    }

    private static void release(BodyBudget.Reservation reservation, GenerationQueue.Admission slot) {
        reservation.close();
        if (slot != null) {
            slot.close();
        }
    }

    /**
     * @return a queue slot, or null when the exchange was answered (429 full, 503 shutting down; the body's bytes
     *     released first, and the connection closed, as the body may be unread)
     */
    private static GenerationQueue.Admission admit(
            GenerationQueue queue, BodyBudget.Reservation reservation, Response response, Callback callback) {
        try {
            return queue.admit();
        } catch (GenerationQueue.QueueFullException e) {
            reservation.close();
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            HttpExchanges.sendError(response, callback, 429, e.getMessage());
        } catch (GenerationQueue.ClosedException e) {
            reservation.close();
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            HttpExchanges.sendError(response, callback, 503, "the service is shutting down: " + e.getMessage());
        }
        return null;
    }

    /**
     * A queued generation's failure in OpenAI's error shape, with the status of a JSON answer: 504 past the timeout,
     * 499 when the client left, 503 while shutting down, 400 for a request the pipeline refused, 500 for a failure.
     *
     * @param e what {@link GenerationQueue#run} threw
     * @return the error
     */
    static ApiError failure(Exception e) {
        int status;
        String message = e.getMessage();
        if (e instanceof GenerationQueue.TimedOutException) {
            status = 504;
        } else if (e instanceof GenerationQueue.AbandonedException) {
            status = 499;
        } else if (e instanceof GenerationQueue.ClosedException || e instanceof GenerationCancelledException) {
            status = 503;
            message = "the service is shutting down: " + message;
        } else if (e instanceof InvalidRequestException) {
            status = 400;
        } else {
            LOG.warn("generation failed: {}", message, e);
            status = 500;
        }
        return new ApiError(status, message, null, HttpExchanges.defaultCode(status));
    }

    /**
     * Answers a queued generation's failure ({@link #failure}) as JSON.
     *
     * @param e what {@link GenerationQueue#run} threw
     * @param response the response, not yet committed
     * @param callback its callback
     */
    static void answerFailure(Exception e, Response response, Callback callback) {
        if (e instanceof GenerationQueue.AbandonedException) {
            // Nobody is listening; the answer only lets Jetty finish the exchange.
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        HttpExchanges.sendError(response, callback, failure(e));
    }

    /**
     * Runs the generation through the queue, or answers the failure and returns null.
     *
     * @return the result, or null when the exchange was answered
     */
    static GenerationResult run(
            GenerationQueue queue,
            ServerMetrics metrics,
            Admitted admitted,
            GenerationRequest generation,
            Request request,
            Response response,
            Callback callback) {
        try {
            GenerationResult result;
            try {
                result = queue.run(admitted.slot(), generation, () -> HttpExchanges.clientGone(request, response));
            } finally {
                // Released before any answer is written: a client's next request must find its slot and bytes free.
                admitted.close();
            }
            metrics.generated(result);
            return result;
        } catch (GenerationQueue.TimedOutException
                | GenerationQueue.AbandonedException
                | GenerationQueue.ClosedException
                | Flux2Exception e) {
            answerFailure(e, response, callback);
        }
        return null;
    }
}
