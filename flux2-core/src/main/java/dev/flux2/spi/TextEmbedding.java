package dev.flux2.spi;

/**
 * A backend-owned text context ([1, text_seq, context_dim]), kept in whatever form the backend feeds its
 * transformer fastest. Closed by the pipeline when the generation ends.
 */
public interface TextEmbedding extends AutoCloseable {
    /** @return the tokenized prompt this context was computed from */
    TokenizedPrompt tokens();

    /** Releases the context. Idempotent. */
    @Override
    void close();
}
