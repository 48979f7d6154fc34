package dev.flux2.api;

/**
 * Receives the live previews of one generation ({@link GenerationControls#withPreviews}). Called on the generating
 * thread between two denoiser steps: the next step waits for it to return, so hand slow work (encoding, I/O) to
 * another thread. It should not throw: an exception is logged (the first with its stack trace) and the generation
 * goes on, as with a {@link ProgressListener}, because a failed preview must not lose the image.
 */
@FunctionalInterface
public interface PreviewListener {
    /** @param preview the preview and its step */
    void onPreview(Preview preview);
}
