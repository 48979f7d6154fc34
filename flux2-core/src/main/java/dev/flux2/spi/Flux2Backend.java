package dev.flux2.spi;

import dev.flux2.api.ModelInfo;
import java.util.Optional;

/**
 * An opened model. The pipeline calls the stages in data-flow order; each call either returns its value or throws
 * a {@link dev.flux2.api.Flux2Exception} ({@code InferenceException} naming the stage,
 * {@code GenerationCancelledException} when {@link StageContext} was cancelled).
 *
 * <p>Thread safety: implementations must allow concurrent calls from several generating threads (they may
 * serialise them internally) and must make {@link #close()} wait for, or abort, calls in flight.
 */
public interface Flux2Backend extends AutoCloseable {

    /** @return the model's identity and defaults */
    ModelInfo modelInfo();

    /**
     * Where a VAE encoder that fits this model can be found, named in the message that refuses image input on a
     * model without one (the ONNX backend names an export of the same FLUX.2 VAE). Optional: the default names
     * none, and the message still says how to add an encoder.
     *
     * @return a short phrase, for example {@code "the vae_encoder of owner/name"}, or empty
     */
    default Optional<String> vaeEncoderSource() {
        return Optional.empty();
    }

    /**
     * Announces a generation before its first stage, so that the backend can prepare in the background (the ONNX
     * backend opens the transformer's session ahead when memory allows). Optional: the default prepares nothing.
     * Preparation must not fail the generation: what cannot be prepared is simply done when the stage runs, and a
     * failure of work started here is reported by the stage that needed it.
     *
     * @param plan the generation's size and denoiser path
     * @param context cancellation, progress and timing for this generation
     * @return what was started; the caller closes it when the generation ends
     */
    default Preparation prepare(GenerationPlan plan, StageContext context) {
        return Preparation.NONE;
    }

    /**
     * Tokenizes a prompt exactly as the reference does (chat template, right padding, right truncation).
     *
     * @param prompt the prompt, verbatim
     * @return ids and mask of the model's text sequence length
     */
    TokenizedPrompt tokenize(String prompt);

    /**
     * Runs the text encoder.
     *
     * @param tokens the tokenized prompt
     * @param context cancellation, progress and timing for this generation
     * @return the text context; the caller closes it
     */
    TextEmbedding encodeText(TokenizedPrompt tokens, StageContext context);

    /**
     * VAE-encodes an image to the normalised, patchified latent the transformer consumes ([128, H/16, W/16],
     * BatchNorm-normalised, distribution mode).
     *
     * @param image pixels in [−1, 1], sides multiples of 16
     * @param context cancellation, progress and timing for this generation
     * @return the latent
     * @throws dev.flux2.api.ModelLoadException when the model has no VAE encoder
     */
    LatentGrid encodeImage(PixelTensor image, StageContext context);

    /**
     * Prepares the transformer for one generation (fixed token count, ids and reference tokens).
     *
     * @param setup the token layout of this generation
     * @param context cancellation, progress and timing for this generation
     * @return the session; the caller closes it
     */
    DenoiserSession openDenoiser(DenoiserSetup setup, StageContext context);

    /**
     * Decodes a normalised, patchified latent ([128, H/16, W/16], as the transformer produces it after packing is
     * undone) into pixels.
     *
     * @param latent the latent
     * @param context cancellation, progress (attention chunks) and timing for this generation
     * @return pixels, nominally in [−1, 1]
     */
    PixelTensor decodeLatent(LatentGrid latent, StageContext context);

    /** Releases every native resource. Idempotent; later calls throw {@code PipelineClosedException}. */
    @Override
    void close();
}
