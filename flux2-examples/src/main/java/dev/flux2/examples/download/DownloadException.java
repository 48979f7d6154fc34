package dev.flux2.examples.download;

import dev.flux2.api.ModelLoadException;

/**
 * A bundle could not be downloaded or failed verification: an HTTP error, an interrupted or stalled transfer (the
 * {@code .part} file is kept so that the next run resumes), a file missing from the repository, or a size or
 * BLAKE3 mismatch. The message names the file, the URL or the expected and actual values. It is a
 * {@link ModelLoadException} because the outcome for the caller is the same: no usable bundle.
 */
public final class DownloadException extends ModelLoadException {
    private static final long serialVersionUID = 1L;

    /** @param message names the file and what was expected versus found */
    public DownloadException(String message) {
        super(message);
    }

    /**
     * @param message names the file and what was expected versus found
     * @param cause the underlying I/O failure
     */
    public DownloadException(String message, Throwable cause) {
        super(message, cause);
    }
}
