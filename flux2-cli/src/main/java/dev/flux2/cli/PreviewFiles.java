package dev.flux2.cli;

import dev.flux2.api.Preview;
import dev.flux2.api.PreviewListener;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes the live previews of {@code flux2 generate --preview-every K --preview-dir DIR} as PNG files, each atomically
 * (a temporary file moved into place): {@code step-KK.png}, or {@code image-N-step-KK.png} when the request makes
 * several images. A file that cannot be written is a warning, said once, and the generation goes on: a lost preview
 * must not lose the image. Used on the generating thread only.
 */
final class PreviewFiles implements PreviewListener {
    private final Path dir;
    private final int numImages;
    private final ProgressBars bars;
    private final PrintWriter err;
    private boolean warned;

    /**
     * @param dir the folder (checked beforehand with {@link OutputCheck})
     * @param numImages images in the request
     * @param bars the progress bars, told about each file; null without bars
     * @param err where a failure is reported
     */
    PreviewFiles(Path dir, int numImages, ProgressBars bars, PrintWriter err) {
        this.dir = dir;
        this.numImages = numImages;
        this.bars = bars;
        this.err = err;
    }

    /**
     * @param dir the folder
     * @param numImages images in the request
     * @param image the image index
     * @param step the step
     * @param steps the steps run, for the number's width
     * @return the file of that preview
     */
    static Path file(Path dir, int numImages, int image, int step, int steps) {
        int digits = Math.max(2, Integer.toString(steps).length());
        String name = String.format(Locale.ROOT, "step-%0" + digits + "d.png", step);
        return dir.resolve(numImages > 1 ? "image-" + (image + 1) + "-" + name : name);
    }

    @Override
    public void onPreview(Preview preview) {
        Path file = file(dir, numImages, preview.imageIndex(), preview.step(), preview.steps());
        try {
            ImageFileWriter.writePng(preview.image(), file);
            if (bars != null) {
                bars.previewWritten(file);
            }
        } catch (IOException e) {
            if (!warned) {
                warned = true;
                err.println("flux2: warning: cannot write preview " + file + ": " + ImageFileWriter.reason(e)
                        + " (later previews are tried, their failures not reported)");
                err.flush();
            }
        }
    }
}
