package dev.flux2.tokenizer;

import ai.djl.engine.EngineException;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.spi.TokenizedPrompt;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a prompt into the {@code input_ids} and {@code attention_mask} FLUX.2 [klein]'s Qwen3 text encoder takes,
 * exactly as the reference does: render the chat template ({@code PromptTemplate}), encode the whole rendered string
 * in one call with the bundle's {@code tokenizer.json}, keep the first {@link #sequenceLength()} ids (a long prompt
 * loses the template's tail too, which the reference does not re-append), and right-pad with the
 * {@code pad_token} of {@code tokenizer_config.json} (151643 {@code <|endoftext|>} for Qwen3).
 *
 * <p>Encoding runs in the Rust HuggingFace tokenizers library through {@code ai.djl.huggingface:tokenizers}. DJL's
 * own truncation and padding are switched off: its default pad id for Qwen's {@code tokenizer.json} is 0, and its
 * maximum length is silently capped at 512. Truncation and padding happen here instead, which also gives the exact
 * number of cut tokens.
 *
 * <p><b>No network.</b> Loading this class sets, unless the user already set them (as environment variable or
 * system property): {@code ai.djl.offline=true} (JVM-wide DJL offline mode), {@code OPT_OUT_TRACKING=true} (no
 * EC2-metadata or telemetry requests) and {@code RUST_FLAVOR=cpu} (the native library bundled in the jar, never a
 * downloaded CUDA build). That works only if no DJL tokenizer was initialised earlier in the JVM. The native library
 * is extracted once from the jar to {@code ~/.djl.ai/tokenizers/} ({@code DJL_CACHE_DIR} or {@code ENGINE_CACHE_DIR}
 * move it). On hosts without a GPU, DJL may log a WARN "Failed to detect GPU count" from
 * {@code ai.djl.util.cuda.CudaUtils}; it is harmless, and applications can silence that logger.
 *
 * <p><b>Checked once per content.</b> {@code tokenizer.json} is read once; the native tokenizer is built from those
 * bytes. The check of its definition (regexes, dropout) is skipped when the same bytes (SHA-256) passed it before:
 * the hashes are remembered as empty marker files in {@code $FLUX2_CACHE_DIR/tokenizer-checks} (else
 * {@code $XDG_CACHE_HOME/flux2-java/tokenizer-checks}, else {@code ~/.cache/flux2-java/tokenizer-checks}; the system
 * property {@code flux2.tokenizer.checkCache} names another folder, or {@code off}). A new or changed file is
 * checked in full.
 *
 * <p><b>Threads and lifetime.</b> Thread-safe: the underlying tokenizer is never reconfigured after loading, so any
 * number of threads may call {@link #tokenize} and {@link #encodeRaw} concurrently. The instance owns one native
 * tokenizer, freed by {@link #close()}; a close that races with running calls waits for them to finish. An instance
 * that becomes unreachable without being closed is freed by a {@link Cleaner}, with a WARN naming its folder.
 */
public final class Qwen3PromptTokenizer implements AutoCloseable {

    static {
        // Must run before the first DJL class initialises: DJL reads RUST_FLAVOR once, when it loads its library.
        DjlRuntimeDefaults.apply();
    }

    private static final Logger LOG = LoggerFactory.getLogger(Qwen3PromptTokenizer.class);

    private static final Cleaner CLEANER = Cleaner.create();

    /** DJL settings for the underlying tokenizer: encode only; truncation and padding are done by this class. */
    private static final Map<String, String> DJL_OPTIONS =
            Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false");

    /** A probe for {@code post_processor} tokens; any non-empty text works. */
    private static final String POST_PROCESSOR_PROBE = "a";

    private final Path directory;
    private final int sequenceLength;
    private final long padId;
    private final NativeTokenizer nativeTokenizer;
    private final Cleaner.Cleanable cleanable;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private boolean closed; // guarded by lock

    private Qwen3PromptTokenizer(Path directory, int sequenceLength, long padId, NativeTokenizer nativeTokenizer) {
        this.directory = directory;
        this.sequenceLength = sequenceLength;
        this.padId = padId;
        this.nativeTokenizer = nativeTokenizer;
        this.cleanable = CLEANER.register(this, nativeTokenizer);
    }

    /**
     * Loads the tokenizer folder of a FLUX.2 [klein] bundle.
     *
     * @param tokenizerDirectory the folder named by {@code tokenizer_dir} in {@code flux2-config.json}; it must
     *                           contain {@code tokenizer.json} and {@code tokenizer_config.json}
     * @param sequenceLength the fixed text sequence length, {@code text_seq_len} in {@code flux2-config.json} (512
     *                       for klein); positive
     * @return a loaded tokenizer, owned by the caller, who must {@link #close()} it
     * @throws ModelLoadException naming the path and what is wrong if the folder or a file is missing, a file is
     *                            not valid JSON or not a valid tokenizer, {@code pad_token} is missing or is not a
     *                            single token, the tokenizer adds special tokens around every sequence (which the
     *                            klein Qwen3 tokenizer does not), the chat template's special tokens are not
     *                            single tokens, {@code tokenizer.json} is over 64 MiB or its normaliser,
     *                            pre-tokenizer or model is not Qwen3's ({@code TokenizerDefinition}: other regexes can
     *                            abort the JVM in native code), or the native library cannot be loaded
     * @throws IllegalArgumentException if {@code sequenceLength} is not positive
     * @throws NullPointerException if {@code tokenizerDirectory} is null
     */
    public static Qwen3PromptTokenizer load(Path tokenizerDirectory, int sequenceLength) {
        return load(tokenizerDirectory, sequenceLength, CheckedTokenizers.defaultStore());
    }

    /**
     * {@link #load(Path, int)} with the store of checked contents given (tests).
     *
     * @param tokenizerDirectory the tokenizer folder
     * @param sequenceLength the text sequence length
     * @param checked the contents that passed {@code TokenizerDefinition}'s checks before
     * @return a loaded tokenizer
     */
    static Qwen3PromptTokenizer load(Path tokenizerDirectory, int sequenceLength, CheckedTokenizers checked) {
        Objects.requireNonNull(tokenizerDirectory, "tokenizerDirectory");
        if (sequenceLength <= 0) {
            throw new IllegalArgumentException("sequenceLength must be positive, got " + sequenceLength);
        }
        TokenizerFiles files = TokenizerFiles.locate(tokenizerDirectory);
        String padToken = PadTokenReader.read(files.tokenizerConfig());
        byte[] content = TokenizerDefinition.read(files.tokenizerJson());
        // The definition check streams over all 11 MB of Qwen3's file (a third of a load's CPU): a content that
        // passed it before, byte for byte, is not checked again. Any other content is, and a refused one never
        // leaves a mark.
        String sha256 = CheckedTokenizers.sha256(content);
        boolean known = checked.isChecked(sha256);
        if (!known) {
            TokenizerDefinition.check(files.tokenizerJson(), content);
        }
        HuggingFaceTokenizer tokenizer = openNative(files.tokenizerJson(), content);
        try {
            requireNoPostProcessorTokens(tokenizer, files.tokenizerJson());
            requireTemplateTokens(tokenizer, files.tokenizerJson());
            long padId = resolvePadId(tokenizer, padToken, files);
            if (!known) {
                checked.markChecked(sha256);
            }
            LOG.debug(
                    "Loaded tokenizer {} (sha256 {}, definition {}; pad token {} = id {}, sequence length {})",
                    files.tokenizerJson(),
                    sha256,
                    known ? "checked before" : "checked now",
                    padToken,
                    padId,
                    sequenceLength);
            return new Qwen3PromptTokenizer(
                    files.directory(), sequenceLength, padId, new NativeTokenizer(tokenizer, files.directory()));
        } catch (RuntimeException e) {
            tokenizer.close();
            throw e;
        }
    }

    /**
     * The fixed length of every {@link TokenizedPrompt} this tokenizer returns. Still available after close.
     *
     * @return the text sequence length given to {@link #load}
     */
    public int sequenceLength() {
        return sequenceLength;
    }

    /**
     * The id used for padding: {@code pad_token} of {@code tokenizer_config.json} mapped through
     * {@code tokenizer.json} (151643 for Qwen3). Still available after close.
     *
     * @return the pad id
     */
    public long padId() {
        return padId;
    }

    /**
     * Tokenizes one prompt for the text encoder.
     *
     * <p>The prompt is rendered with {@code PromptTemplate.render}, the whole string is encoded in one call (so
     * special-token text typed in the prompt becomes special tokens, and whitespace at the prompt's edges merges
     * with the template as in the reference), the first {@link #sequenceLength()} ids are kept and the rest
     * right-padded with {@link #padId()}.
     *
     * @param prompt the user's prompt, used verbatim; may be empty
     * @return fresh arrays of exactly {@link #sequenceLength()}: ids, and a mask of 1 for real tokens then 0 for
     *         pads; {@code realTokens} is the number of 1s and {@code truncatedTokens} the exact number of ids cut
     *         from the right (0 if the rendered prompt fit), which callers should report to the user
     * @throws InvalidRequestException if the prompt has an unpaired UTF-16 surrogate (not valid Unicode, so the
     *                                 reference could not tokenize it either) or more than
     *                                 {@link GenerationLimits#MAX_PROMPT_CHARS} characters
     * @throws PipelineClosedException after {@link #close()}
     * @throws NullPointerException if {@code prompt} is null
     */
    public TokenizedPrompt tokenize(String prompt) {
        String rendered = PromptTemplate.render(
                WellFormedText.require(requireBounded(Objects.requireNonNull(prompt, "prompt"), "prompt"), "prompt"));
        TokenizedPrompt result = PromptSequence.fit(encode(rendered, "tokenize"), sequenceLength, padId);
        if (result.truncatedTokens() > 0) {
            LOG.debug(
                    "Prompt truncated: {} of {} tokens kept, {} cut",
                    result.realTokens(),
                    result.realTokens() + result.truncatedTokens(),
                    result.truncatedTokens());
        }
        return result;
    }

    /**
     * Encodes text as it is: no template, no special tokens added, no truncation, no padding. For diagnostics and
     * for checking the tokenizer against reference encodings; the text encoder needs {@link #tokenize}.
     *
     * @param text any text; special-token text in it still maps to special-token ids
     * @return a fresh array with every id of the text, possibly empty
     * @throws InvalidRequestException if the text has an unpaired UTF-16 surrogate or more than
     *                                 {@link GenerationLimits#MAX_PROMPT_CHARS} characters
     * @throws PipelineClosedException after {@link #close()}
     * @throws NullPointerException if {@code text} is null
     */
    public long[] encodeRaw(String text) {
        return encode(
                WellFormedText.require(requireBounded(Objects.requireNonNull(text, "text"), "text"), "text"),
                "encodeRaw");
    }

    /**
     * The native tokenizer aborts the JVM when its regex engine gives up on a very long text (Oniguruma's retry
     * limit: a Rust panic, uncatchable), so no text longer than the API's prompt limit reaches it.
     */
    private static String requireBounded(String text, String parameter) {
        if (text.length() > GenerationLimits.MAX_PROMPT_CHARS) {
            throw new InvalidRequestException(parameter + " has " + text.length() + " characters, more than the "
                    + "limit of " + GenerationLimits.MAX_PROMPT_CHARS + " (GenerationLimits.MAX_PROMPT_CHARS) that "
                    + "the tokenizer accepts");
        }
        return text;
    }

    /**
     * Frees the native tokenizer. Idempotent; waits for calls already running; {@link #tokenize} and
     * {@link #encodeRaw} throw {@link PipelineClosedException} afterwards.
     */
    @Override
    public void close() {
        Lock write = lock.writeLock();
        write.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            nativeTokenizer.closedByOwner = true;
            cleanable.clean();
        } finally {
            write.unlock();
        }
    }

    /** {@return the folder and settings, for logs} */
    @Override
    public String toString() {
        return "Qwen3PromptTokenizer[" + directory + ", sequenceLength=" + sequenceLength + ", padId=" + padId + "]";
    }

    private long[] encode(String text, String call) {
        Lock read = lock.readLock();
        read.lock();
        try {
            if (closed) {
                throw new PipelineClosedException(
                        "Qwen3PromptTokenizer." + call + " called after close() (tokenizer " + directory + ")");
            }
            return nativeTokenizer.tokenizer.encode(text, false, false).getIds();
        } finally {
            read.unlock();
        }
    }

    private static HuggingFaceTokenizer openNative(Path tokenizerJson, byte[] content) {
        try {
            return HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(content), DJL_OPTIONS);
        } catch (IOException e) {
            throw new ModelLoadException("Cannot read tokenizer file " + tokenizerJson + ": " + e, e);
        } catch (EngineException | LinkageError e) {
            throw new ModelLoadException(
                    "Cannot load the HuggingFace tokenizers native library bundled in "
                            + "ai.djl.huggingface:tokenizers (os.name=" + System.getProperty("os.name") + ", os.arch="
                            + System.getProperty("os.arch") + "), needed to load " + tokenizerJson + ": " + e,
                    e);
        } catch (RuntimeException e) {
            // The Rust parser reports malformed JSON and invalid tokenizer definitions as plain runtime exceptions.
            throw new ModelLoadException(
                    "Malformed tokenizer file " + tokenizerJson + ": expected a HuggingFace "
                            + "tokenizers definition (JSON), the parser reported: " + e.getMessage(),
                    e);
        }
    }

    /**
     * Our truncation keeps the first L ids of the full encoding. The reference truncates before its post-processor
     * appends special tokens, so the two agree only if the post-processor appends none: check that once.
     */
    private static void requireNoPostProcessorTokens(HuggingFaceTokenizer tokenizer, Path tokenizerJson) {
        long[] plain = tokenizer.encode(POST_PROCESSOR_PROBE, false, false).getIds();
        long[] withSpecials =
                tokenizer.encode(POST_PROCESSOR_PROBE, true, false).getIds();
        if (!Arrays.equals(plain, withSpecials)) {
            throw new ModelLoadException("Tokenizer file " + tokenizerJson + ": its post_processor adds special "
                    + "tokens (\"" + POST_PROCESSOR_PROBE + "\" encodes to " + Arrays.toString(withSpecials)
                    + " instead of " + Arrays.toString(plain) + "); expected the Qwen3 tokenizer of FLUX.2 [klein],"
                    + " which adds none");
        }
    }

    /**
     * The chat template's markers must each be one added token, as in Qwen3: otherwise they are tokenized as plain
     * text and the text encoder sees a different sequence than the reference, silently.
     */
    private static void requireTemplateTokens(HuggingFaceTokenizer tokenizer, Path tokenizerJson) {
        for (String special : PromptTemplate.SPECIAL_TOKENS) {
            long[] ids = tokenizer.encode(special, false, false).getIds();
            if (ids.length != 1) {
                throw new ModelLoadException("Tokenizer file " + tokenizerJson + ": the chat template's special token "
                        + special + " is not a single token (it encodes to " + ids.length + " ids "
                        + Arrays.toString(ids) + "); expected the Qwen3 tokenizer of FLUX.2 [klein], whose "
                        + "added_tokens hold " + String.join(" ", PromptTemplate.SPECIAL_TOKENS));
            }
        }
    }

    private static long resolvePadId(HuggingFaceTokenizer tokenizer, String padToken, TokenizerFiles files) {
        Encoding encoding = tokenizer.encode(padToken, false, false);
        long[] ids = encoding.getIds();
        if (ids.length != 1) {
            throw new ModelLoadException("Tokenizer config " + files.tokenizerConfig() + ": pad_token \"" + padToken
                    + "\" is not a single token of " + files.tokenizerJson() + " (it encodes to " + ids.length
                    + " ids " + Arrays.toString(ids) + "); expected an added token such as Qwen3's <|endoftext|>");
        }
        return ids[0];
    }

    /**
     * The native tokenizer and its release action. Kept apart from the outer instance so that the {@link Cleaner}
     * can free it when the owner was never closed.
     */
    private static final class NativeTokenizer implements Runnable {
        private final HuggingFaceTokenizer tokenizer;
        private final Path directory;
        private volatile boolean closedByOwner;

        NativeTokenizer(HuggingFaceTokenizer tokenizer, Path directory) {
            this.tokenizer = tokenizer;
            this.directory = directory;
        }

        /** Runs exactly once: from {@code close()}, or from the cleaner if the owner leaked the instance. */
        @Override
        public void run() {
            if (!closedByOwner) {
                LOG.warn("Qwen3PromptTokenizer for {} was not closed; freeing its native tokenizer now", directory);
            }
            tokenizer.close();
        }
    }
}
