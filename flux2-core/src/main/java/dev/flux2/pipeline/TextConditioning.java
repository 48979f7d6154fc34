package dev.flux2.pipeline;

import dev.flux2.api.InferenceException;
import dev.flux2.api.Stage;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The text context of one request: the prompt's embedding and, under classifier-free guidance, the negative
 * prompt's. Encoded once per request and shared by its images; owns and closes both embeddings.
 */
final class TextConditioning implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TextConditioning.class);

    private final TokenizedPrompt promptTokens;
    private final TextEmbedding positive;
    private final TextEmbedding negative;

    private TextConditioning(TokenizedPrompt promptTokens, TextEmbedding positive, TextEmbedding negative) {
        this.promptTokens = promptTokens;
        this.positive = Objects.requireNonNull(positive, "positive embedding");
        this.negative = negative;
    }

    /**
     * Tokenizes [stage TOKENIZE] and encodes [stage TEXT_ENCODE] the prompt, and the negative prompt when
     * classifier-free guidance is on. Both stages are attributed to image 0.
     *
     * @param request the resolved request
     * @param backend the backend
     * @param context the request's context
     * @return the conditioning; the caller closes it
     */
    static TextConditioning encode(ResolvedRequest request, Flux2Backend backend, GenerationContext context) {
        boolean cfg = request.guidance().classifierFree();
        GenerationContext.StageSpan tokenizeSpan = context.begin(Stage.TOKENIZE, 0, cfg ? 2 : 1);
        TokenizedPrompt positiveTokens = tokenize("prompt", request.prompt(), backend, context);
        TokenizedPrompt negativeTokens = null;
        if (cfg) {
            tokenizeSpan.advanced(1);
            negativeTokens = tokenize("negative prompt", request.negativePrompt(), backend, context);
            if (negativeTokens.inputIds().length != positiveTokens.inputIds().length) {
                throw new InferenceException("tokenization: the negative prompt has "
                        + negativeTokens.inputIds().length + " token ids but the prompt has "
                        + positiveTokens.inputIds().length + "; both must have the text sequence length");
            }
        }
        tokenizeSpan.finish();

        GenerationContext.StageSpan encodeSpan = context.begin(Stage.TEXT_ENCODE, 0, cfg ? 2 : 1);
        TextEmbedding positive =
                context.call("text encoding of the prompt", () -> backend.encodeText(positiveTokens, context));
        TextEmbedding negative = null;
        if (negativeTokens != null) {
            TokenizedPrompt tokens = negativeTokens;
            try {
                encodeSpan.advanced(1);
                negative =
                        context.call("text encoding of the negative prompt", () -> backend.encodeText(tokens, context));
            } catch (RuntimeException e) {
                closeAfterFailure(positive, e);
                throw e;
            }
        }
        encodeSpan.finish();
        return new TextConditioning(positiveTokens, positive, negative);
    }

    private static TokenizedPrompt tokenize(String what, String text, Flux2Backend backend, GenerationContext context) {
        TokenizedPrompt tokens = context.call("tokenization of the " + what, () -> backend.tokenize(text));
        if (tokens.truncatedTokens() > 0) {
            LOG.warn(
                    "The {} is too long: {} token(s) beyond the text sequence length of {} were cut off",
                    what,
                    tokens.truncatedTokens(),
                    tokens.inputIds().length);
        }
        return tokens;
    }

    private static void closeAfterFailure(TextEmbedding embedding, RuntimeException failure) {
        try {
            embedding.close();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** @return the prompt's embedding */
    TextEmbedding positive() {
        return positive;
    }

    /** @return the negative prompt's embedding, or null without classifier-free guidance */
    TextEmbedding negative() {
        return negative;
    }

    /** @return prompt tokens cut because the prompt was longer than the text sequence */
    int truncatedTokens() {
        return promptTokens.truncatedTokens();
    }

    /** @return the text sequence length L (for the text position ids) */
    int sequenceLength() {
        return promptTokens.inputIds().length;
    }

    /** Closes both embeddings, the negative first; a failure closing one does not leak the other. */
    @Override
    public void close() {
        try {
            if (negative != null) {
                negative.close();
            }
        } finally {
            positive.close();
        }
    }
}
