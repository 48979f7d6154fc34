package dev.flux2.spark;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The options of {@link Flux2BatchJob}. */
@Command(
        name = "flux2-batch",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Generate one PNG per request row on Spark: <output>/images/<id>.png, <output>/results/ (Parquet) and"
                    + " <output>/results.jsonl.",
            "Request columns: id, prompt (required); seed, width, height, steps, guidance, init_image, strength,"
                    + " reference_images (optional)."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the batch ran (failed rows, without --fail-fast, are in the results)",
            "1:unexpected failure (output not writable, Spark failure)",
            "2:usage error or unusable input (missing, unknown format, bad columns, repeated ids)",
            "3:the model cannot be loaded",
            "4:--fail-fast: a row failed",
            "130/143:interrupted by SIGINT/SIGTERM: generations cancelled, pipelines closed"
        })
final class JobCommand {
    @Option(
            names = "--model",
            required = true,
            paramLabel = "DIR|REPO[@REV]",
            description = "Model folder (holding flux2-config.json) at the same path on every executor, or a Hugging"
                    + " Face repo id that each executor host resolves once into its hub cache (HF_HOME, HF_TOKEN,"
                    + " HF_ENDPOINT, HF_HUB_OFFLINE of the executors' environment).")
    String model;

    @Option(
            names = "--input",
            required = true,
            paramLabel = "URI",
            description = "Requests: a .jsonl, .json, .csv or .parquet file, folder or glob (any Hadoop file system).")
    String input;

    @Option(
            names = "--output",
            required = true,
            paramLabel = "URI",
            description = "Output folder (any Hadoop file system).")
    String output;

    @Option(
            names = "--concurrency",
            paramLabel = "N",
            defaultValue = "1",
            description = "Generations at once per executor, sharing its one pipeline (default ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--fail-fast", description = "Fail the job at the first failed row instead of reporting it.")
    boolean failFast;

    /** @return the batch options these name */
    BatchOptions batchOptions() {
        return BatchOptions.builder(model, output)
                .concurrency(concurrency)
                .failFast(failFast)
                .build();
    }
}
