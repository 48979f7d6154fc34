package dev.flux2.onnx.stage;

import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A text context kept in native memory in the text encoder's output type, so every denoising step feeds the same
 * tensor without conversion or copy. Owns its tensor; {@link #close()} is idempotent.
 */
public final class OnnxTextEmbedding implements TextEmbedding {
    private final TokenizedPrompt tokens;
    private final TensorBuffer context;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param tokens the prompt it was computed from
     * @param context the [1, text_seq, context_dim] context; ownership passes to this object
     */
    OnnxTextEmbedding(TokenizedPrompt tokens, TensorBuffer context) {
        this.tokens = Objects.requireNonNull(tokens, "tokens");
        this.context = Objects.requireNonNull(context, "context");
    }

    @Override
    public TokenizedPrompt tokens() {
        return tokens;
    }

    /**
     * @return the context tensor (owned by this object)
     * @throws IllegalStateException after {@link #close()}
     */
    public TensorBuffer context() {
        if (closed.get()) {
            throw new IllegalStateException("the text embedding has been closed");
        }
        return context;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            context.close();
        }
    }
}
