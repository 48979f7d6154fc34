package dev.flux2.api;

import java.util.Optional;

/**
 * A backend call failed while generating. The message names the stage and step (for example
 * {@code "transformer step 2/4"}); {@link #backendErrorCode()} keeps the runtime's own error code when it has one.
 */
public class InferenceException extends Flux2Exception {
    private static final long serialVersionUID = 1L;
    private final String backendErrorCode;

    /**
     * @param message names the stage and step
     * @param backendErrorCode the runtime's error code (for ONNX Runtime the {@code OrtErrorCode} name), or null
     * @param cause the runtime's exception
     */
    public InferenceException(String message, String backendErrorCode, Throwable cause) {
        super(message, cause);
        this.backendErrorCode = backendErrorCode;
    }

    /** @param message names the stage and step */
    public InferenceException(String message) {
        this(message, null, null);
    }

    /** @return the runtime's error code, when the failure came from the runtime */
    public Optional<String> backendErrorCode() {
        return Optional.ofNullable(backendErrorCode);
    }
}
