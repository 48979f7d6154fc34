package dev.flux2.api;

import java.util.Objects;
import java.util.Optional;

/**
 * What the caller of one generation controls while it runs, kept out of the {@link GenerationRequest} (a plain value
 * that says what to generate): the progress listener that receives its events, the token that cancels it and the
 * live previews it makes. Passed
 * with the request, {@code pipeline.generate(request, controls)}; {@link #none()} is neither.
 *
 * <pre>{@code
 * CancellationToken token = new CancellationToken();
 * pipeline.generate(request, GenerationControls.none().withProgress(event -> log(event)).withCancellation(token));
 * }</pre>
 *
 * <p>Immutable; the {@code with} methods return a copy.
 */
public final class GenerationControls {
    private static final GenerationControls NONE = new GenerationControls(ProgressListener.NONE, null, null, null);

    private final ProgressListener progressListener;
    private final CancellationToken cancellation;
    private final PreviewOptions previews;
    private final PreviewListener previewListener;

    private GenerationControls(
            ProgressListener progressListener,
            CancellationToken cancellation,
            PreviewOptions previews,
            PreviewListener previewListener) {
        this.progressListener = progressListener;
        this.cancellation = cancellation;
        this.previews = previews;
        this.previewListener = previewListener;
    }

    /** @return no listener ({@link ProgressListener#NONE}) and no token */
    public static GenerationControls none() {
        return NONE;
    }

    /**
     * @param listener receives stage and step events on the generating thread; null: {@link ProgressListener#NONE}
     * @return a copy with this listener
     */
    public GenerationControls withProgress(ProgressListener listener) {
        return new GenerationControls(
                listener == null ? ProgressListener.NONE : listener, cancellation, previews, previewListener);
    }

    /**
     * @param token cancels the generation when cancelled; null: none
     * @return a copy with this token
     */
    public GenerationControls withCancellation(CancellationToken token) {
        return new GenerationControls(progressListener, token, previews, previewListener);
    }

    /**
     * Asks for live previews: after every {@code options.everySteps()}-th denoiser step of each image the predicted
     * clean image is rendered ({@link PreviewMode}) and handed to the listener on the generating thread. Previews
     * never change the generated images; without them they cost nothing. A request that would run a bundle's fused
     * multi-step denoiser runs per step instead, because the fused graph keeps its intermediate latents to itself
     * (docs/embedding.md, "Live previews").
     *
     * @param options which previews; null turns previews off
     * @param listener receives them; required when {@code options} is set
     * @return a copy with these previews
     */
    public GenerationControls withPreviews(PreviewOptions options, PreviewListener listener) {
        if (options == null) {
            return new GenerationControls(progressListener, cancellation, null, null);
        }
        Objects.requireNonNull(listener, "listener (previews need one)");
        return new GenerationControls(progressListener, cancellation, options, listener);
    }

    /** @return the previews asked for, if any */
    public Optional<PreviewOptions> previews() {
        return Optional.ofNullable(previews);
    }

    /** @return the preview listener, or null when no previews are asked for */
    public PreviewListener previewListener() {
        return previewListener;
    }

    /** @return the progress listener ({@link ProgressListener#NONE} when unset) */
    public ProgressListener progressListener() {
        return progressListener;
    }

    /** @return the cancellation token, if set */
    public Optional<CancellationToken> cancellation() {
        return Optional.ofNullable(cancellation);
    }

    @Override
    public String toString() {
        return "GenerationControls[progressListener=" + (progressListener == ProgressListener.NONE ? "none" : "set")
                + ", cancellation=" + (cancellation == null ? "none" : Objects.toString(cancellation))
                + ", previews=" + (previews == null ? "none" : previews) + "]";
    }
}
