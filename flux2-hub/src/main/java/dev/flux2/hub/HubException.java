package dev.flux2.hub;

import dev.flux2.api.ModelLoadException;

/**
 * A model could not be resolved, fetched or verified: an HTTP error, an interrupted or stalled transfer (its
 * {@code .incomplete} file is kept so that the next run resumes), a file missing from the repository or from an
 * offline cache, or a size or digest mismatch (the bad file is deleted so that the next run fetches it again). The
 * message names the file and the expected and actual values; it never contains the access token.
 */
public final class HubException extends ModelLoadException {
    private static final long serialVersionUID = 1L;

    /** @param message names the file and what was expected versus found */
    public HubException(String message) {
        super(message);
    }

    /**
     * @param message names the file and what was expected versus found
     * @param cause the underlying failure
     */
    public HubException(String message, Throwable cause) {
        super(message, cause);
    }
}
