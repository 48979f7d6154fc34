package dev.flux2.api;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * Wall-clock time per stage of a generation, plus the part of it spent inside the backend runtime's inference
 * calls (for ONNX Runtime: inside {@code OrtSession.run}). {@code total − runtime} is the SDK's own overhead.
 *
 * @param perStage wall time per stage that ran (stages that did not run are absent)
 * @param total wall time of the whole generation
 * @param runtime time spent inside the runtime's inference calls
 */
public record StageTimings(Map<Stage, Duration> perStage, Duration total, Duration runtime) {

    /** Copies the map (keeping stage order). */
    public StageTimings {
        Objects.requireNonNull(total, "total");
        Objects.requireNonNull(runtime, "runtime");
        EnumMap<Stage, Duration> copy = new EnumMap<>(Stage.class);
        copy.putAll(perStage);
        perStage = Collections.unmodifiableMap(copy);
    }

    /**
     * @param stage a stage
     * @return the stage's wall time, or zero when it did not run
     */
    public Duration of(Stage stage) {
        return perStage.getOrDefault(stage, Duration.ZERO);
    }
}
