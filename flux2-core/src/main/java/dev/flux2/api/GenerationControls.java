package dev.flux2.api;

import java.util.Objects;
import java.util.Optional;

/**
 * What the caller of one generation controls while it runs, kept out of the {@link GenerationRequest} (a plain value
 * that says what to generate): the progress listener that receives its events and the token that cancels it. Passed
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
    private static final GenerationControls NONE = new GenerationControls(ProgressListener.NONE, null);

    private final ProgressListener progressListener;
    private final CancellationToken cancellation;

    private GenerationControls(ProgressListener progressListener, CancellationToken cancellation) {
        this.progressListener = progressListener;
        this.cancellation = cancellation;
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
        return new GenerationControls(listener == null ? ProgressListener.NONE : listener, cancellation);
    }

    /**
     * @param token cancels the generation when cancelled; null: none
     * @return a copy with this token
     */
    public GenerationControls withCancellation(CancellationToken token) {
        return new GenerationControls(progressListener, token);
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
                + ", cancellation=" + (cancellation == null ? "none" : Objects.toString(cancellation)) + "]";
    }
}
