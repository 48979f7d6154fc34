package dev.flux2.langchain4j;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.NonRetriableException;

/**
 * Flux2 exceptions as LangChain4j's: the message is kept and the Flux2 exception is the cause, so callers that want
 * the precise type (for example {@code InvalidImageException}) still get it with {@code getCause()}. A local model
 * has nothing a retry would fix, so every mapping is non-retriable except cancellation, which is neither.
 */
final class ErrorMapping {
    private ErrorMapping() {}

    static LangChain4jException map(Flux2Exception e) {
        if (e instanceof InvalidRequestException) {
            return new dev.langchain4j.exception.InvalidRequestException(e.getMessage(), e);
        }
        if (e instanceof ModelLoadException) {
            return new ModelNotFoundException(e.getMessage(), e);
        }
        if (e instanceof GenerationCancelledException) {
            return new LangChain4jException(e.getMessage(), e);
        }
        return new NonRetriableException(e.getMessage(), e);
    }
}
