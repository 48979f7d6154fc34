package dev.flux2.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The errors Jetty answers itself (a request it cannot parse, an ambiguous URI, a header too large, a handler that
 * failed) in OpenAI's error shape instead of Jetty's HTML page, so that every answer of the server that is not a
 * success has {@code {"error": {"message", "type", "param", "code"}}}.
 */
final class ErrorAnswers extends ErrorHandler {
    @Override
    protected void generateResponse(
            Request request, Response response, int code, String message, Throwable cause, Callback callback)
            throws IOException {
        HttpExchanges.sendError(response, callback, code, text(code, message));
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json; charset=utf-8");
        return ByteBuffer.wrap(HttpExchanges.errorBody(
                new ApiError(status, text(status, reason), null, HttpExchanges.defaultCode(status))));
    }

    private static String text(int code, String message) {
        if (code >= 500) {
            // Jetty's message for a failed handler is the exception's text: logged by Jetty, not sent.
            return HttpStatus.getMessage(code) + " (see the server's log)";
        }
        String reason = HttpStatus.getMessage(code);
        return message == null || message.isBlank() || message.equals(reason) ? reason : reason + ": " + message;
    }
}
