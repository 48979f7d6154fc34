package dev.flux2.cli;

import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** Formats {@link StageTimings} for humans: {@code text_encode=1.23s denoise=4.56s … total=7.89s (runtime 7.01s)}. */
final class Timings {
    private Timings() {}

    /**
     * @param timings the timings
     * @return one line
     */
    static String format(StageTimings timings) {
        StringJoiner j = new StringJoiner(" ");
        for (Map.Entry<Stage, Duration> e : timings.perStage().entrySet()) {
            j.add(e.getKey().name().toLowerCase(Locale.ROOT) + "=" + seconds(e.getValue()));
        }
        j.add("total=" + seconds(timings.total()));
        return j + " (runtime " + seconds(timings.runtime()) + ")";
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3fs", d.toNanos() / 1e9);
    }
}
