package dev.flux2.api;

/**
 * Root of every exception the SDK throws on purpose. Unchecked: callers catch it where they can act on it.
 *
 * <p>Messages name the file, the stage and what was expected versus what was found, so that a log line alone
 * is enough to fix the problem.
 */
public class Flux2Exception extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what went wrong, naming the file or stage and the expected value */
    public Flux2Exception(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, naming the file or stage and the expected value
     * @param cause the underlying failure, kept for diagnosis
     */
    public Flux2Exception(String message, Throwable cause) {
        super(message, cause);
    }
}
