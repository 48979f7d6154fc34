package dev.flux2.pipeline;

import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Accumulates wall time per (image, stage) and runtime time per image for one request. Thread-safe: backends may
 * report runtime nanos from their own threads.
 */
final class TimingRecorder {
    /** Per image and stage ordinal; -1 marks a stage that did not run for the image. */
    private final long[][] stageNanos;

    private final long[] runtimeNanos;

    TimingRecorder(int images) {
        this.stageNanos = new long[images][Stage.values().length];
        this.runtimeNanos = new long[images];
        for (long[] row : stageNanos) {
            Arrays.fill(row, -1L);
        }
    }

    synchronized void addStage(int image, Stage stage, long nanos) {
        long previous = stageNanos[image][stage.ordinal()];
        stageNanos[image][stage.ordinal()] = Math.max(previous, 0L) + nanos;
    }

    synchronized void addRuntime(int image, long nanos) {
        runtimeNanos[image] += nanos;
    }

    /** @return the image's stages (those that ran for it), their sum as total, and its runtime share */
    synchronized StageTimings forImage(int image) {
        Map<Stage, Duration> perStage = new EnumMap<>(Stage.class);
        long total = 0;
        for (Stage stage : Stage.values()) {
            long nanos = stageNanos[image][stage.ordinal()];
            if (nanos >= 0) {
                perStage.put(stage, Duration.ofNanos(nanos));
                total += nanos;
            }
        }
        return new StageTimings(perStage, Duration.ofNanos(total), Duration.ofNanos(runtimeNanos[image]));
    }

    /** @return every stage summed over the images, the given wall time as total, and all runtime time */
    synchronized StageTimings forRequest(long wallNanos) {
        Map<Stage, Duration> perStage = new EnumMap<>(Stage.class);
        long runtime = 0;
        for (int image = 0; image < runtimeNanos.length; image++) {
            runtime += runtimeNanos[image];
            for (Stage stage : Stage.values()) {
                long nanos = stageNanos[image][stage.ordinal()];
                if (nanos >= 0) {
                    perStage.merge(stage, Duration.ofNanos(nanos), Duration::plus);
                }
            }
        }
        return new StageTimings(perStage, Duration.ofNanos(wallNanos), Duration.ofNanos(runtime));
    }
}
