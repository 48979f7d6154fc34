package dev.flux2.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch generation on Spark: a {@code Dataset<Row>} of requests ({@link RequestColumns}) in, a {@code Dataset<Row>}
 * of results ({@link ResultColumns}) out, each image written as {@code <output>/images/<id>.png} with the same
 * PNG text chunks as {@code flux2 generate} ({@link dev.flux2.io.PngFiles}).
 *
 * <pre>{@code
 * BatchOptions options = BatchOptions.builder("/models/flux2-klein-4b", "s3a://bucket/run-1").build();
 * Dataset<Row> results = Flux2Batch.generate(spark.read().json("s3a://bucket/prompts.jsonl"), options);
 * results.write().parquet("s3a://bucket/run-1/results");   // runs the generation
 * }</pre>
 *
 * <p><b>One pipeline per executor.</b> The first task of an executor JVM that needs the model builds it
 * ({@code RESIDENT}); every later task of that JVM shares it, at most {@link BatchOptions#concurrency()}
 * generations at once. Register {@link Flux2SparkPlugin} ({@code spark.plugins}) so it is closed when the executor
 * stops.
 *
 * <p><b>Exactly-once images on an at-least-once engine.</b> A task may run more than once (a retry after a
 * failure, a speculative copy). An image's name comes from its row's id, and it is written to a hidden temporary
 * file that is renamed into place, so a reader never sees a partial image under its final
 * name and a row never has two files. An attempt that finds a complete image of the same request at the row's path
 * keeps it (status {@code skipped}). On a local file system and HDFS the rename is atomic; on S3A it is a copy and
 * a delete, and the image becomes visible whole when the copy completes (S3 objects appear only when complete).
 * A temporary file can outlive only an executor killed mid-write; {@link #deleteTemporaryFiles} removes them.
 *
 * <p><b>Determinism.</b> A row's image is pixel for pixel what {@code flux2 generate} gives for the same prompt,
 * seed, size and steps; a row without a seed gets {@link RowId#derivedSeed(String)}, recorded in the results.
 *
 * <p><b>Failures.</b> A bad row (invalid id or value, unreadable image, a request the model refuses) becomes a
 * result row with status {@code failed} and the error, and the batch goes on; with
 * {@link BatchOptions#failFast()} it fails the job instead ({@link RowFailedException}). A model that cannot be
 * loaded or an output that cannot be written fails the tasks, and Spark's retries and job failure apply.
 */
public final class Flux2Batch {
    private static final Logger LOG = LoggerFactory.getLogger(Flux2Batch.class);
    private static final int DUPLICATES_SHOWN = 10;

    private Flux2Batch() {}

    /**
     * Checks the requests (columns and types; unique ids, which runs one Spark job over them) and the output folder,
     * then returns the results as a lazy Dataset: the images are generated when an action runs on it. Run one
     * action (write the results), or {@code persist()} it first: each action runs the generation again, which
     * then finds every image complete and reports it {@code skipped}.
     *
     * @param requests the requests; other columns than {@link RequestColumns#ALL} are ignored
     * @param options the model, output and concurrency
     * @return the results, one row per request row
     * @throws InvalidRequestException when a required column is missing, a column has the wrong type or ids repeat
     * @throws Flux2Exception when the output folder cannot be created
     */
    public static Dataset<Row> generate(Dataset<Row> requests, BatchOptions options) {
        return generate(requests, options, Map.of());
    }

    /**
     * As {@link #generate(Dataset, BatchOptions)}, failing the rows the input check refused (their text holds what
     * Spark's reader silently changes, such as a lone surrogate) with the reason.
     */
    static Dataset<Row> generate(Dataset<Row> requests, BatchOptions options, Map<String, String> refused) {
        SparkSession spark = requests.sparkSession();
        RequestLayout layout = RequestLayout.of(requests.schema()).refusing(refused);
        if (!layout.ignoredColumns().isEmpty()) {
            LOG.warn("ignoring request columns that flux2 does not use: {}", layout.ignoredColumns());
        }
        Column[] columns = layout.columns().stream().map(c -> col(c)).toArray(Column[]::new);
        Dataset<Row> selected = requests.select(columns);
        long rows = checkUniqueIds(selected);
        int partitions = options.partitions() > 0 ? options.partitions() : automaticPartitions(spark, rows);
        checkOutput(spark, options.output());
        warnWithoutPlugin(spark);
        Broadcast<SerializableConfiguration> conf = JavaSparkContext.fromSparkContext(spark.sparkContext())
                .broadcast(new SerializableConfiguration(spark.sparkContext().hadoopConfiguration()));
        return selected.repartition(partitions)
                .mapPartitions(new PartitionGenerator(layout, options, conf), Encoders.row(ResultColumns.SCHEMA));
    }

    /**
     * Deletes the temporary files that attempts killed mid-write left in {@code <output>/images}. Call it after the
     * batch, when no task runs any more.
     *
     * @param spark the session (for its Hadoop configuration)
     * @param output the output folder URI
     * @return how many were deleted
     * @throws Flux2Exception when the folder cannot be listed
     */
    public static int deleteTemporaryFiles(SparkSession spark, String output) {
        try {
            return ImageStore.deleteTemporaryFiles(output, spark.sparkContext().hadoopConfiguration());
        } catch (IOException e) {
            throw new Flux2Exception("cannot clean the images folder of " + output + ": " + Values.oneLine(e), e);
        }
    }

    /**
     * Checks that ids are unique and counts the rows, in one aggregation (a second query names the repeated ids
     * only when there are some).
     *
     * @return the number of rows
     */
    private static long checkUniqueIds(Dataset<Row> requests) {
        Row totals = requests.groupBy(RequestColumns.ID)
                .count()
                .agg(sum("count"), max(when(col(RequestColumns.ID).isNotNull(), col("count"))))
                .first();
        long rows = totals.isNullAt(0) ? 0 : totals.getLong(0);
        if (totals.isNullAt(1) || totals.getLong(1) < 2) {
            return rows;
        }
        List<Row> repeated =
                new ArrayList<>(requests.filter(col(RequestColumns.ID).isNotNull())
                        .groupBy(RequestColumns.ID)
                        .count()
                        .filter(col("count").gt(1))
                        .limit(DUPLICATES_SHOWN + 1)
                        .collectAsList());
        repeated.sort(Comparator.comparing(r -> r.getString(0)));
        String shown = repeated.stream()
                .limit(DUPLICATES_SHOWN)
                .map(r -> Values.quote(r.get(0)) + " (" + r.getLong(1) + " rows)")
                .collect(Collectors.joining(", "));
        throw new InvalidRequestException("ids must be unique (each names its image file), found repeated " + shown
                + (repeated.size() > DUPLICATES_SHOWN ? " and more" : ""));
    }

    private static int automaticPartitions(SparkSession spark, long rows) {
        long parallelism = 2L * spark.sparkContext().defaultParallelism();
        return (int) Math.max(1, Math.min(rows, parallelism));
    }

    private static void checkOutput(SparkSession spark, String output) {
        try {
            ImageStore.open(output, spark.sparkContext().hadoopConfiguration());
        } catch (IOException | IllegalArgumentException e) {
            throw new Flux2Exception("the output folder " + output + " cannot be used: " + Values.oneLine(e), e);
        }
    }

    private static void warnWithoutPlugin(SparkSession spark) {
        String plugins = spark.sparkContext().getConf().get("spark.plugins", "");
        boolean registered =
                Arrays.stream(plugins.split(",")).map(String::trim).anyMatch(Flux2SparkPlugin.class.getName()::equals);
        if (!registered) {
            LOG.warn(
                    "spark.plugins does not list {}: executors will not close their flux2 pipeline before they exit",
                    Flux2SparkPlugin.class.getName());
        }
    }
}
