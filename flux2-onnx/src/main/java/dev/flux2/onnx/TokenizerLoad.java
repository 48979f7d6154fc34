package dev.flux2.onnx;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The prompt tokenizer, loaded on a background thread while the backend finishes opening and the first generation
 * starts (under RESIDENT its transformer session is then created at the same time: a faster start; SEQUENTIAL waits
 * for the load before opening anything ahead, to keep its peak). The first
 * {@link #tokenize} waits for it; a load failure is thrown there, as the {@link ModelLoadException} it is (the
 * bundle's tokenizer files were already checked to exist). {@link #close()} waits for the load and closes the
 * tokenizer. Thread-safe.
 */
final class TokenizerLoad implements AutoCloseable {
    private final CompletableFuture<Qwen3PromptTokenizer> load;

    private TokenizerLoad(CompletableFuture<Qwen3PromptTokenizer> load) {
        this.load = load;
    }

    /**
     * @param directory the tokenizer folder
     * @param sequenceLength text_seq_len
     * @return the load, started
     */
    static TokenizerLoad start(Path directory, int sequenceLength) {
        CompletableFuture<Qwen3PromptTokenizer> f = new CompletableFuture<>();
        try {
            // On a reused thread: the tokenizer's native memory lands in the same malloc arena each time.
            dev.flux2.onnx.session.LoaderThreads.run("flux2-tokenizer-load", () -> {
                try {
                    f.complete(Qwen3PromptTokenizer.load(directory, sequenceLength));
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            });
        } catch (OutOfMemoryError e) {
            throw dev.flux2.onnx.session.ThreadStartFailure.of("loading the tokenizer", e);
        }
        return new TokenizerLoad(f);
    }

    /** @return a load that is already done (tests) */
    static TokenizerLoad of(Qwen3PromptTokenizer tokenizer) {
        return new TokenizerLoad(CompletableFuture.completedFuture(tokenizer));
    }

    /**
     * @param prompt the prompt
     * @return ids and mask
     */
    TokenizedPrompt tokenize(String prompt) {
        return tokenizer().tokenize(prompt);
    }

    /** Waits until the load has ended (a failure is thrown later, by {@link #tokenize}). */
    void awaitLoaded() {
        try {
            tokenizer();
        } catch (RuntimeException e) {
            // Reported by tokenize, as the stage's error.
        }
    }

    private Qwen3PromptTokenizer tokenizer() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return load.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof Flux2Exception f) {
                        throw f;
                    }
                    throw new ModelLoadException("cannot load the tokenizer: " + cause, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for the load and closes the tokenizer (nothing to close when the load failed). Idempotent. */
    @Override
    public void close() {
        Qwen3PromptTokenizer t;
        try {
            t = tokenizer();
        } catch (RuntimeException e) {
            return;
        }
        t.close();
    }
}
