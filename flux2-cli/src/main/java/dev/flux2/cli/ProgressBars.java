package dev.flux2.cli;

import dev.flux2.api.ProgressEvent;
import dev.flux2.api.ProgressListener;
import dev.flux2.api.Stage;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Draws one progress bar per stage (and per image) on a stream (stderr), driven by the pipeline's
 * {@link ProgressEvent}s: a stage's bar opens on {@code STARTED}, advances on each {@code ADVANCED} (denoising
 * steps, VAE attention chunks) and closes on {@code FINISHED}. Used on the generating thread only.
 */
final class ProgressBars implements ProgressListener, AutoCloseable {
    private final PrintStream stream;
    private final int numImages;
    private ProgressBar current;
    private Stage currentStage;

    /**
     * @param stream where bars are drawn
     * @param numImages images in the request, to label bars "image k/K" when more than one
     */
    ProgressBars(PrintStream stream, int numImages) {
        this.stream = stream;
        this.numImages = numImages;
    }

    @Override
    public void onProgress(ProgressEvent event) {
        switch (event.kind()) {
            case STARTED -> open(event);
            case ADVANCED -> {
                if (current == null || currentStage != event.stage()) {
                    open(event);
                }
                current.maxHint(Math.max(1, event.total()));
                current.stepTo(event.completed());
                if (event.stage() == Stage.DENOISE) {
                    current.setExtraMessage(String.format(Locale.ROOT, "step %d/%d", event.completed(), event.total()));
                }
            }
            case FINISHED -> {
                if (current != null && currentStage == event.stage()) {
                    current.stepTo(current.getMax());
                    closeCurrent();
                }
            }
        }
    }

    /**
     * Names the live preview just written after the current step, beside the step.
     *
     * @param file the preview's file
     */
    void previewWritten(Path file) {
        if (current != null && currentStage == Stage.DENOISE) {
            current.setExtraMessage(current.getExtraMessage() + ", preview " + file.getFileName());
        }
    }

    private void open(ProgressEvent event) {
        closeCurrent();
        String name = label(event.stage()) + (numImages > 1 ? " " + (event.imageIndex() + 1) + "/" + numImages : "");
        current = new ProgressBarBuilder()
                .setTaskName(name)
                .setInitialMax(Math.max(1, event.total()))
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(100)
                .setConsumer(new ConsoleProgressBarConsumer(stream))
                .hideEta()
                .build();
        currentStage = event.stage();
    }

    private static String label(Stage stage) {
        return switch (stage) {
            case TOKENIZE -> "Tokenize";
            case TEXT_ENCODE -> "Text encoder";
            case VAE_ENCODE -> "VAE encode";
            case DENOISE -> "Denoise";
            case VAE_DECODE -> "VAE decode";
        };
    }

    private void closeCurrent() {
        if (current != null) {
            current.close();
            current = null;
            currentStage = null;
        }
    }

    /** Closes a bar left open by a failed or cancelled generation. */
    @Override
    public void close() {
        closeCurrent();
        stream.flush();
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "ProgressBars[%s]", currentStage);
    }
}
