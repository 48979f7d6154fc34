package dev.flux2.server;

import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** One resource of the service; it answers every request it gets (completing the callback). */
interface Route {
    /**
     * @param request the request
     * @param response the response
     * @param callback completed when the answer is written
     * @throws Exception on an unexpected failure (answered 500 by Jetty)
     */
    void handle(Request request, Response response, Callback callback) throws Exception;
}
