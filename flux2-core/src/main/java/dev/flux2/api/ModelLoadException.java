package dev.flux2.api;

/**
 * The model bundle cannot be used: a missing or truncated file, a malformed config, a graph whose inputs or
 * outputs do not match the contract, an unavailable execution provider, or no backend for the folder. Thrown by
 * {@code Flux2Pipeline.Builder.build()} wherever the check does not need the weights in memory.
 */
public class ModelLoadException extends Flux2Exception {
    private static final long serialVersionUID = 1L;

    /** @param message names the file or graph key, what was expected and what was found */
    public ModelLoadException(String message) {
        super(message);
    }

    /**
     * @param message names the file or graph key, what was expected and what was found
     * @param cause the underlying failure
     */
    public ModelLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
