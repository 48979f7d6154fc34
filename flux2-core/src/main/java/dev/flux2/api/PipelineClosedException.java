package dev.flux2.api;

/** A method was called on a {@link dev.flux2.Flux2Pipeline} (or a backend object) after {@code close()}. */
public final class PipelineClosedException extends Flux2Exception {
    private static final long serialVersionUID = 1L;

    /** @param message names the object and the call */
    public PipelineClosedException(String message) {
        super(message);
    }
}
