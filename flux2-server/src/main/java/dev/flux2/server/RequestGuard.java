package dev.flux2.server;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * Checks every request before its route: on a loopback server a foreign {@code Host} (DNS rebinding) is refused;
 * a foreign {@code Origin} (a web page of another site) is refused unless it is {@code --cors-origin}; a POST must
 * be JSON or multipart (a text/plain or form-encoded POST is what a web page can send cross-site without a CORS
 * preflight); with an API key, {@code Authorization: Bearer KEY} is required (compared in constant time) except
 * for {@code /health}, the capability URLs of {@link ImageStore} and the playground page {@code GET /} (which holds
 * nothing secret and asks for the key itself). Adds the CORS headers for the allowed origin.
 */
final class RequestGuard {
    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    private final ServiceConfig config;
    private final boolean loopback;
    private final byte[] key;

    RequestGuard(ServiceConfig config) {
        this.config = config;
        this.loopback = ServiceConfig.isLoopback(config.address());
        this.key = config.apiKey() == null ? null : config.apiKey().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @return true when the request is a CORS preflight that the guard answered itself (nothing else to do)
     * @throws ApiError the refusal (403, 401, 415)
     */
    boolean check(Request request, Response response, String path) throws ApiError {
        String host = request.getHeaders().get(HttpHeader.HOST);
        if (loopback && (host == null || !LOOPBACK_NAMES.contains(hostName(host)))) {
            throw new ApiError(
                    403,
                    "Host '" + OpenAiImageRequest.shortened(String.valueOf(host)) + "' is not this loopback server's"
                            + " (localhost, 127.0.0.1 or [::1]); refused against DNS rebinding",
                    null,
                    "forbidden_host");
        }
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        boolean corsAllowed = origin != null && origin.equals(config.corsOrigin());
        if (origin != null && !corsAllowed && !sameOrigin(origin, host)) {
            throw new ApiError(
                    403,
                    "Origin '" + OpenAiImageRequest.shortened(origin) + "' is not allowed"
                            + (config.corsOrigin() == null
                                    ? " (CORS is off; start the server with --cors-origin ORIGIN)"
                                    : " (the allowed origin is " + config.corsOrigin() + ")"),
                    null,
                    "forbidden_origin");
        }
        if (corsAllowed) {
            response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
            response.getHeaders().put(HttpHeader.VARY, "Origin");
            if ("OPTIONS".equals(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, OPTIONS");
                response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_HEADERS, "Authorization, Content-Type");
                response.getHeaders().put(HttpHeader.ACCESS_CONTROL_MAX_AGE, "600");
                return true;
            }
        }
        if (key != null
                && !path.equals(HealthHandler.PATH)
                && !path.startsWith(ImageStore.PREFIX)
                && !(config.ui() && path.equals(PlaygroundPage.PATH))) {
            String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
            if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
                throw new ApiError(
                        401, "an API key is required: send 'Authorization: Bearer KEY'", null, "invalid_api_key");
            }
            byte[] given = auth.substring(7).strip().getBytes(StandardCharsets.UTF_8);
            // Constant time in the key's content: the comparison does not stop at the first differing byte.
            if (!MessageDigest.isEqual(given, key)) {
                throw new ApiError(401, "incorrect API key provided", null, "invalid_api_key");
            }
        }
        if ("POST".equals(request.getMethod())) {
            String type = MediaTypes.of(request);
            if (!type.equals(MediaTypes.JSON) && !type.equals(MediaTypes.MULTIPART)) {
                throw new ApiError(
                        415,
                        "Content-Type must be application/json (or multipart/form-data for " + OpenAiImagesHandler.EDITS
                                + "), got '" + (type.isEmpty() ? "none" : OpenAiImageRequest.shortened(type)) + "'",
                        null,
                        "unsupported_media_type");
            }
        }
        return false;
    }

    private static String hostName(String hostHeader) {
        String h = hostHeader.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.indexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }

    private static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            URI u = URI.create(origin);
            String authority = u.getRawAuthority();
            return authority != null && authority.equalsIgnoreCase(host.strip());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
