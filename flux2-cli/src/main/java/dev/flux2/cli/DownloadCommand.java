package dev.flux2.cli;

import dev.flux2.hub.FileVerification;
import dev.flux2.hub.HubOptions;
import dev.flux2.hub.ModelHub;
import dev.flux2.hub.ModelNames;
import dev.flux2.hub.RepoRef;
import dev.flux2.hub.ResolvedModel;
import dev.flux2.hub.VerificationReport;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code flux2 download [REPO[@REV]] [--dir DIR]}: fetches a model into the shared hub cache (or, with
 * {@code --dir}, into a plain folder), resumably and verified; a thin user of {@link ModelHub}, the same code that
 * {@code --model REPO} uses.
 */
@Command(
        name = "download",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Download a model from Hugging Face into the hub cache (or a plain folder with --dir); resumable, verified.",
            // Repo and commit apart: picocli cuts a token longer than its column, and the hash must stay whole.
            "Default: " + ModelNames.DEFAULT_MODEL_REPO + " at commit " + ModelNames.DEFAULT_MODEL_COMMIT
                    + " (sizes, SHA-256 and BLAKE3 checked)."
        })
final class DownloadCommand extends BaseCommand {
    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "REPO[@REV]",
            defaultValue = ModelNames.DEFAULT_MODEL,
            description = "Repository id, optionally @branch, @tag or @commit (default: the model above at its"
                    + " pinned commit).")
    String repo;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "Write a plain folder instead of the hub cache (created if needed; verified files are kept).")
    Path dir;

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            description = "Hub endpoint (default: $HF_ENDPOINT or https://huggingface.co).")
    URI endpoint;

    @Option(
            names = "--retries",
            paramLabel = "N",
            defaultValue = "3",
            description = "Resuming retries per file after an interrupted transfer (default ${DEFAULT-VALUE}).")
    int retries;

    @Option(
            names = "--stall-timeout",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description =
                    "Abort (and retry) a transfer that receives nothing for this long (default ${DEFAULT-VALUE}).")
    int stallTimeoutSeconds;

    @Option(names = "--verify", description = "Afterwards, hash every file again and compare (expected vs actual).")
    boolean verify;

    @Option(
            names = "--no-progress",
            description = "Do not draw progress bars on stderr (drawn only when stderr is a terminal, unless"
                    + " FLUX2_PROGRESS=on).")
    boolean noProgress;

    @Override
    public Integer call() {
        RepoRef ref;
        try {
            ref = RepoRef.parse(repo);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (expected REPO or REPO@REV, e.g. owner/name@main)");
        }
        ResolvedModel model;
        ModelHub hub;
        try (DownloadProgressBars bars = new DownloadProgressBars(System.err, !noProgress)) {
            HubOptions.Builder options = HubOptions.builder().listener(bars);
            if (endpoint != null) {
                options.endpoint(endpoint);
            }
            hub = ModelHub.builder()
                    .options(options.build())
                    .retries(retries)
                    .stallTimeout(Duration.ofSeconds(Math.max(1, stallTimeoutSeconds)))
                    .build();
            out().println("downloading " + ref + " from " + hub.endpoint() + " into "
                    + (dir != null ? dir.toAbsolutePath() : "the hub cache " + hub.cacheDir()));
            out().flush();
            model = dir != null ? hub.download(ref, dir) : hub.resolve(ref);
        }
        out().printf(
                        Locale.ROOT,
                        "model ready: %s%n  %s at commit %s: %d files, %s (%d fetched, %s transferred)%n",
                        model.directory().toAbsolutePath(),
                        ref.repo(),
                        model.commit(),
                        model.fileCount(),
                        Sizes.human(model.totalBytes()),
                        model.downloadedFiles(),
                        Sizes.human(model.downloadedBytes()));
        out().flush();
        if (verify) {
            VerificationReport report = hub.verify(model.directory().toString());
            out().println("verified against " + report.basis() + ":");
            for (FileVerification f : report.files()) {
                out().println("  " + f.describe());
            }
            out().flush();
            if (!report.ok()) {
                err().println("flux2: model error: " + report.failures().size() + " file(s) fail verification: "
                        + String.join(
                                "; ",
                                report.failures().stream()
                                        .map(FileVerification::describe)
                                        .toList()));
                err().flush();
                return ExitCodes.MODEL;
            }
        }
        return ExitCodes.OK;
    }
}
