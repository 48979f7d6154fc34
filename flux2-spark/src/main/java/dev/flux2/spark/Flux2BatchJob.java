package dev.flux2.spark;

import dev.flux2.api.InvalidRequestException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;

/**
 * The batch job: a table of prompts in, a folder of images out, with one {@code spark-submit}.
 *
 * <pre>
 * spark-submit --class dev.flux2.spark.Flux2BatchJob flux2-spark/target/flux2-spark.jar \
 *     --model /models/flux2-klein-4b --input s3a://bucket/prompts.jsonl --output s3a://bucket/run-1 \
 *     [--concurrency N] [--fail-fast]
 * </pre>
 *
 * <p>Reads the requests (({@code .jsonl}, {@code .json}, {@code .csv} or {@code .parquet})), runs {@link Flux2Batch#generate},
 * writes {@code <output>/images/<id>.png}, {@code <output>/results/} (Parquet, replaced if it exists) and
 * {@code <output>/results.jsonl}, deletes temporary files that killed attempts left, and prints one summary line
 * on stdout. It registers {@link Flux2SparkPlugin} in {@code spark.plugins} (keeping plugins already listed).
 * Errors are one line on stderr ({@code flux2-batch: …}). Exit codes: 0 the batch ran
 * (failed rows are in the results), 1 unexpected failure, 2 usage error or unusable input, 3 unusable model, 4 a row
 * failed under {@code --fail-fast}, 130 or 143 interrupted by SIGINT or SIGTERM (the running generations are cancelled
 * and the pipelines closed before the JVM exits).
 */
public final class Flux2BatchJob {
    private static final String NAME = "flux2-batch";

    private Flux2BatchJob() {}

    /**
     * Runs the job in a new (or the current) Spark session, stops it, and exits with the job's code when it is
     * not 0.
     *
     * @param args the options
     */
    public static void main(String[] args) {
        JobCommand command = new JobCommand();
        Integer parsed = parse(command, args, System.out, System.err);
        if (parsed != null) {
            exit(parsed);
            return;
        }
        SparkSession spark = SparkSession.builder()
                .appName(NAME)
                .config("spark.plugins", withPlugin(new SparkConf().get("spark.plugins", "")))
                .getOrCreate();
        int code;
        try {
            code = execute(spark, command, System.out, System.err);
        } finally {
            // Stops the executors, whose plugin closes the pipelines before the JVM (and ONNX Runtime) exits.
            spark.stop();
        }
        exit(code);
    }

    /**
     * Runs the job on a session it leaves running (for embedding and tests).
     *
     * @param spark the session; register {@link Flux2SparkPlugin} in it
     * @param out where the summary goes
     * @param err where errors go, one line each
     * @param args the options
     * @return the exit code
     */
    public static int run(SparkSession spark, PrintStream out, PrintStream err, String... args) {
        JobCommand command = new JobCommand();
        Integer parsed = parse(command, args, out, err);
        return parsed != null ? parsed : execute(spark, command, out, err);
    }

    /** @return null to go on, or the exit code of help, version or a usage error */
    private static Integer parse(JobCommand command, String[] args, PrintStream out, PrintStream err) {
        CommandLine cli =
                new CommandLine(command).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        try {
            cli.parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            err.println(NAME + ": " + Values.oneLine(e) + " (try --help)");
            return JobExitCodes.USAGE;
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return JobExitCodes.OK;
        }
        if (cli.isVersionHelpRequested()) {
            String v = Flux2BatchJob.class.getPackage().getImplementationVersion();
            out.println(NAME + " " + (v == null ? "(development build)" : v));
            return JobExitCodes.OK;
        }
        try {
            command.batchOptions();
        } catch (InvalidRequestException e) {
            err.println(NAME + ": " + Values.oneLine(e) + " (try --help)");
            return JobExitCodes.USAGE;
        }
        return null;
    }

    private static int execute(SparkSession spark, JobCommand command, PrintStream out, PrintStream err) {
        try {
            BatchOptions options = command.batchOptions();
            QuietDjl.apply(); // the driver is an executor too in local mode
            checkModelOnDriver(spark, options);
            InputFormat.Requests requests = InputFormat.readChecked(spark, command.input);
            Dataset<Row> results = Flux2Batch.generate(requests.rows(), options, requests.refused());
            Map<RowStatus, Long> counts = ResultsWriter.write(spark, results, options.output());
            int stale = Flux2Batch.deleteTemporaryFiles(spark, options.output());
            long rows = counts.values().stream().mapToLong(Long::longValue).sum();
            out.printf(
                    Locale.ROOT,
                    "%s: %d rows: %d ok, %d skipped, %d failed; images in %s, results in %s and %s%s%n",
                    NAME,
                    rows,
                    counts.get(RowStatus.OK),
                    counts.get(RowStatus.SKIPPED),
                    counts.get(RowStatus.FAILED),
                    new Path(options.output(), ImageStore.IMAGES),
                    new Path(options.output(), ResultsWriter.RESULTS),
                    new Path(options.output(), ResultsWriter.RESULTS_JSONL),
                    stale == 0 ? "" : "; deleted " + stale + " stale temporary file(s)");
            out.flush();
            return JobExitCodes.OK;
        } catch (Exception e) {
            JobFailure failure = ExecutorSignals.received()
                    .map(signal -> new JobFailure(
                            JobExitCodes.INTERRUPTED_BASE + signal.getNumber(),
                            "interrupted by SIG" + signal.getName() + ": the running generations were cancelled"))
                    .orElseGet(() -> JobFailure.of(e));
            err.println(NAME + ": " + failure.message());
            err.flush();
            return failure.exitCode();
        }
    }

    /**
     * In local mode the driver is the executor: a model that cannot be opened is found here, in milliseconds and
     * with one line, before any input is read or any task starts (and not once per task, with Spark's traces).
     */
    private static void checkModelOnDriver(SparkSession spark, BatchOptions options) {
        if (!spark.sparkContext().isLocal()) {
            return;
        }
        java.nio.file.Path folder = ModelLocation.resolve(PipelineKey.of(options));
        java.util.List<String> problems = dev.flux2.Flux2Models.check(folder);
        if (!problems.isEmpty()) {
            throw new dev.flux2.api.ModelLoadException("model " + options.model() + " (" + folder + ") cannot be"
                    + " used: " + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
                    + (problems.size() > 5 ? "; and " + (problems.size() - 5) + " more" : ""));
        }
    }

    /** @return the plugin list with {@link Flux2SparkPlugin} added (once) */
    static String withPlugin(String plugins) {
        Set<String> all = new LinkedHashSet<>();
        Arrays.stream(plugins.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .forEach(all::add);
        all.add(Flux2SparkPlugin.class.getName());
        return String.join(",", all);
    }

    private static void exit(int code) {
        if (code != JobExitCodes.OK) {
            System.exit(code);
        }
    }
}
