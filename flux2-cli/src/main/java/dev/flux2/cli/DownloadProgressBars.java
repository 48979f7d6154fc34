package dev.flux2.cli;

import dev.flux2.hub.DownloadListener;
import dev.flux2.hub.DownloadPlan;
import java.io.PrintStream;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Prints the plan of a first download ({@code fetching 18 files, 4.87 GiB of …}) and then one byte-progress bar
 * per transferred file on a stream (stderr). Used on the resolving thread only.
 */
final class DownloadProgressBars implements DownloadListener, AutoCloseable {
    private final PrintStream stream;
    private final boolean bars;
    private ProgressBar current;

    /**
     * @param stream where to print (stderr)
     * @param bars whether the command wants progress bars (drawn only where {@link ProgressSwitch} allows: on a
     *     terminal); the plan is printed regardless
     */
    DownloadProgressBars(PrintStream stream, boolean bars) {
        this.stream = stream;
        this.bars = ProgressSwitch.draw(bars);
    }

    @Override
    public void downloadPlanned(DownloadPlan plan) {
        stream.printf(
                Locale.ROOT,
                "fetching %d file%s, %s of %s at %s%s%n",
                plan.fileCount(),
                plan.fileCount() == 1 ? "" : "s",
                Sizes.human(plan.totalBytes()),
                plan.repo(),
                plan.commit(),
                plan.presentBytes() > 0 ? " (" + Sizes.human(plan.presentBytes()) + " already here, resumed)" : "");
        stream.flush();
    }

    @Override
    public void transferStarted(String path, long offset, long totalBytes) {
        closeCurrent();
        if (!bars) {
            return;
        }
        current = new ProgressBarBuilder()
                .setTaskName(shortName(path))
                .setInitialMax(totalBytes > 0 ? totalBytes : -1)
                .setStyle(ProgressBarStyle.ASCII)
                .setUnit("MiB", 1L << 20)
                .setUpdateIntervalMillis(200)
                .showSpeed()
                .setConsumer(new ConsoleProgressBarConsumer(stream))
                .build();
        current.stepTo(offset);
    }

    @Override
    public void transferProgress(String path, long bytesSoFar) {
        if (current != null) {
            current.stepTo(bytesSoFar);
        }
    }

    @Override
    public void fileReady(String path, long bytes, boolean downloaded) {
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
