package dev.flux2.api;

/**
 * A generation request or pipeline option is invalid: bad size, step count, strength, seed/noise combination or
 * similar. The message names the parameter, what was expected and what was given (and, for sizes, the nearest
 * valid value).
 */
public class InvalidRequestException extends Flux2Exception {
    private static final long serialVersionUID = 1L;

    /** @param message names the parameter, the expected value and the given value */
    public InvalidRequestException(String message) {
        super(message);
    }

    /**
     * @param message names the parameter, the expected value and the given value
     * @param cause the underlying failure
     */
    public InvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
