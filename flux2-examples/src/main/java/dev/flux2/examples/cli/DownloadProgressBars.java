package dev.flux2.examples.cli;

import dev.flux2.examples.download.DownloadListener;
import dev.flux2.examples.download.DownloadedFile;
import java.io.PrintStream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** One byte-progress bar per transferred file on a stream (stderr). Used on the downloading thread only. */
final class DownloadProgressBars implements DownloadListener, AutoCloseable {
    private final PrintStream stream;
    private ProgressBar current;

    DownloadProgressBars(PrintStream stream) {
        this.stream = stream;
    }

    @Override
    public void transferStarted(String path, long offset, long totalBytes) {
        closeCurrent();
        ProgressBarBuilder b = new ProgressBarBuilder()
                .setTaskName(shortName(path))
                .setInitialMax(totalBytes > 0 ? totalBytes : -1)
                .setStyle(ProgressBarStyle.ASCII)
                .setUnit("MiB", 1L << 20)
                .setUpdateIntervalMillis(200)
                .showSpeed()
                .setConsumer(new ConsoleProgressBarConsumer(stream));
        current = b.build();
        current.stepTo(offset);
    }

    @Override
    public void transferProgress(String path, long bytesSoFar) {
        if (current != null) {
            current.stepTo(bytesSoFar);
        }
    }

    @Override
    public void fileDone(DownloadedFile file) {
        closeCurrent();
    }

    private static String shortName(String path) {
        return path.length() <= 40 ? path : "…" + path.substring(path.length() - 39);
    }

    private void closeCurrent() {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    @Override
    public void close() {
        closeCurrent();
        stream.flush();
    }
}
