package dev.flux2.examples.spark;

import dev.flux2.spark.BatchOptions;
import dev.flux2.spark.Flux2Batch;
import dev.flux2.spark.Flux2SparkPlugin;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark driver: a JSON Lines file of requests (one {@code {"id": …, "prompt": …, "seed": …}} per line) in, one PNG
 * per row under {@code OUTPUT/images} and a results table (status, seed, error per row) under
 * {@code OUTPUT/results} out (docs/spark.md). The master comes from {@code spark-submit}, else {@code local[1]}. Run:
 * {@code spark-submit --class dev.flux2.examples.spark.SparkDriverExample ... MODEL_DIR requests.jsonl OUTPUT}.
 */
public final class SparkDriverExample {
    private SparkDriverExample() {}

    /** @param args model folder (the same path on every executor) or repo id, requests file, output folder */
    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: SparkDriverExample MODEL_DIR REQUESTS.jsonl OUTPUT_DIR");
            System.exit(2);
        }
        SparkSession spark = SparkSession.builder()
                .appName("flux2-spark-driver-example")
                .master(System.getProperty("spark.master", "local[1]"))
                // Closes each executor's pipeline when the executor stops.
                .config("spark.plugins", Flux2SparkPlugin.class.getName())
                .getOrCreate();
        try {
            Dataset<Row> requests = spark.read().json(args[1]);
            BatchOptions options = BatchOptions.builder(args[0], args[2]).build();
            Dataset<Row> results = Flux2Batch.generate(requests, options);
            // The write is the action that runs the generation.
            results.write().mode("overwrite").parquet(args[2] + "/results");
        } finally {
            spark.stop();
        }
    }
}
