package dev.flux2.server;

/**
 * A refusal answered in OpenAI's error shape, {@code {"error": {"message", "type", "param", "code"}}}: thrown by the
 * parsers and guards, caught by the handler that owns the exchange.
 */
final class ApiError extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String param;
    private final String code;

    ApiError(int status, String message, String param, String code) {
        super(message);
        this.status = status;
        this.param = param;
        this.code = code;
    }

    /** @return a 400 naming the field */
    static ApiError invalid(String param, String message) {
        return new ApiError(400, message, param, "invalid_value");
    }

    int status() {
        return status;
    }

    String param() {
        return param;
    }

    String code() {
        return code;
    }

    /** OpenAI's {@code type} for a status: what its clients switch on (LangChain4j and the openai package map it). */
    static String typeOf(int status) {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            case 500, 503, 504 -> "server_error";
            default -> "invalid_request_error";
        };
    }
}
