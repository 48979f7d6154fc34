package dev.flux2.examples.cli;

import dev.flux2.examples.download.DownloadListener;
import dev.flux2.examples.download.DownloadOptions;
import dev.flux2.examples.download.DownloadReport;
import dev.flux2.examples.download.DownloadedFile;
import dev.flux2.examples.download.HfBundleDownloader;
import dev.flux2.examples.download.KnownBundles;
import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code flux2 download}: fetches a bundle from Hugging Face over HTTPS, resumably, and verifies it (sizes against
 * the bundle config; sizes and BLAKE3 for the pinned default revision).
 */
@Command(
        name = "download",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Download a FLUX.2 ONNX bundle from Hugging Face (resumable, verified).",
            "Default: " + DownloadOptions.DEFAULT_REPO + " at the pinned revision " + DownloadOptions.DEFAULT_REVISION
                    + " (sizes and BLAKE3 checked)."
        })
final class DownloadCommand extends BaseCommand {
    @Option(
            names = "--dir",
            required = true,
            paramLabel = "DIR",
            description = "Target folder (created if needed; completed files are kept).")
    Path dir;

    @Option(
            names = "--repo",
            paramLabel = "ID",
            defaultValue = DownloadOptions.DEFAULT_REPO,
            description = "Repository id (default ${DEFAULT-VALUE}).")
    String repo;

    @Option(
            names = "--revision",
            paramLabel = "REV",
            description = "Branch, tag or commit (default: the pinned commit for the default repo, main otherwise).")
    String revision;

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            description = "Hub endpoint (default: $HF_ENDPOINT or " + DownloadOptions.DEFAULT_ENDPOINT + ").")
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

    @Option(
            names = "--verify",
            description = "Re-hash files already present (pinned bundles; otherwise only sizes are checked).")
    boolean verify;

    @Option(names = "--no-progress", description = "Do not draw progress bars on stderr.")
    boolean noProgress;

    @Override
    public Integer call() {
        DownloadOptions.Builder b = DownloadOptions.builder(dir)
                .repo(repo)
                .retries(retries)
                .stallTimeout(java.time.Duration.ofSeconds(Math.max(1, stallTimeoutSeconds)))
                .rehashExisting(verify);
        if (revision != null) {
            b.revision(revision);
        }
        if (endpoint != null) {
            b.endpoint(endpoint);
        }
        DownloadOptions options = b.build();
        out().println("downloading " + options.repo() + "@" + options.revision() + " from " + options.endpoint()
                + " into " + dir.toAbsolutePath());
        out().flush();
        DownloadReport report;
        try (DownloadProgressBars bars = noProgress ? null : new DownloadProgressBars(System.err)) {
            DownloadListener listener = bars == null ? DownloadListener.NONE : bars;
            report = new HfBundleDownloader(options, KnownBundles.shipped(), listener).download();
        }
        for (DownloadedFile f : report.files()) {
            String what = switch (f.outcome()) {
                case DOWNLOADED ->
                    f.resumedFrom() > 0 ? "downloaded (resumed at " + f.resumedFrom() + ")" : "downloaded";
                case ALREADY_PRESENT -> "present";
                case ABSENT_OPTIONAL -> "absent (optional, not in this revision)";
            };
            out().printf(
                            Locale.ROOT,
                            "  %-40s %15s  %s%n",
                            f.path(),
                            f.outcome() == DownloadedFile.Outcome.ABSENT_OPTIONAL
                                    ? "-"
                                    : String.format(Locale.ROOT, "%,d", f.bytes()),
                            what);
        }
        out().printf(
                        Locale.ROOT,
                        "bundle ready: %s (%s, %s transferred); verified: %s%n",
                        dir.toAbsolutePath(),
                        Sizes.human(report.totalBytes()),
                        Sizes.human(report.transferredBytes()),
                        report.hashVerified()
                                ? "sizes and BLAKE3 against the pinned list"
                                : "shard sizes against flux2-config.json");
        out().flush();
        return ExitCodes.OK;
    }
}
