package dev.flux2.api;

/** An init or reference image cannot be read or does not satisfy the reference's constraints (size, aspect). */
public final class InvalidImageException extends InvalidRequestException {
    private static final long serialVersionUID = 1L;

    /** @param message names the image (path or index) and what is wrong with it */
    public InvalidImageException(String message) {
        super(message);
    }

    /**
     * @param message names the image (path or index) and what is wrong with it
     * @param cause the underlying I/O failure
     */
    public InvalidImageException(String message, Throwable cause) {
        super(message, cause);
    }
}
