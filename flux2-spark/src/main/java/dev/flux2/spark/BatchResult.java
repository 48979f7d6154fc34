package dev.flux2.spark;

import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * One result row ({@link ResultColumns}).
 *
 * @param id the id as given
 * @param path the image URI, or null
 * @param seed the seed, or null
 * @param width the width, or null
 * @param height the height, or null
 * @param steps the steps, or null
 * @param status what happened
 * @param error why the row failed, or null
 * @param timings the generation's timings, or null when nothing was generated
 */
record BatchResult(
        String id,
        String path,
        Long seed,
        Integer width,
        Integer height,
        Integer steps,
        RowStatus status,
        String error,
        StageTimings timings) {

    /**
     * @param request the request
     * @param path where the image is
     * @param metadata how it was made
     * @param timings the generation's timings
     * @return an {@code ok} row
     */
    static BatchResult ok(RowRequest request, String path, GenerationMetadata metadata, StageTimings timings) {
        return new BatchResult(
                request.id().value(),
                path,
                metadata.seed().isPresent() ? metadata.seed().getAsLong() : request.effectiveSeed(),
                metadata.width(),
                metadata.height(),
                metadata.steps(),
                RowStatus.OK,
                null,
                timings);
    }

    /**
     * @param request the request
     * @param path where the image is
     * @param text the existing image's PNG text entries
     * @return a {@code skipped} row with the image's size and steps
     */
    static BatchResult skipped(RowRequest request, String path, Map<String, String> text) {
        return new BatchResult(
                request.id().value(),
                path,
                request.effectiveSeed(),
                parse(text.get("width")),
                parse(text.get("height")),
                parse(text.get("steps")),
                RowStatus.SKIPPED,
                null,
                null);
    }

    /**
     * @param request the parsed request
     * @param error why it failed
     * @return a {@code failed} row with the requested values
     */
    static BatchResult failed(RowRequest request, String error) {
        return new BatchResult(
                request.id().value(),
                null,
                request.effectiveSeed(),
                request.width(),
                request.height(),
                request.steps(),
                RowStatus.FAILED,
                error,
                null);
    }

    /**
     * @param rawId the id as given, possibly null or invalid
     * @param error why the row could not even be parsed
     * @return a {@code failed} row
     */
    static BatchResult unparsable(String rawId, String error) {
        return new BatchResult(rawId, null, null, null, null, null, RowStatus.FAILED, error, null);
    }

    /** @return the row in {@link ResultColumns#SCHEMA} order */
    Row toRow() {
        return RowFactory.create(
                id,
                path,
                seed,
                width,
                height,
                steps,
                status.value(),
                error,
                millis(Stage.TOKENIZE),
                millis(Stage.TEXT_ENCODE),
                millis(Stage.VAE_ENCODE),
                millis(Stage.DENOISE),
                millis(Stage.VAE_DECODE),
                timings == null ? null : millis(timings.total()));
    }

    private Double millis(Stage stage) {
        return timings == null ? null : millis(timings.of(stage));
    }

    private static Double millis(Duration d) {
        return d.toNanos() / 1e6;
    }

    private static Integer parse(String value) {
        try {
            return value == null ? null : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
