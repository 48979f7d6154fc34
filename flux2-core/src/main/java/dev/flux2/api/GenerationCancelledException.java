package dev.flux2.api;

/**
 * The generation was cancelled through its {@link CancellationToken} (or the pipeline was closed while it ran).
 * Every native resource the generation held has been released when this is thrown.
 */
public final class GenerationCancelledException extends Flux2Exception {
    private static final long serialVersionUID = 1L;

    /** @param message names the stage at which the cancellation took effect */
    public GenerationCancelledException(String message) {
        super(message);
    }

    /**
     * @param message names the stage at which the cancellation took effect
     * @param cause the runtime's termination error, when a running session call was aborted
     */
    public GenerationCancelledException(String message, Throwable cause) {
        super(message, cause);
    }
}
