package dev.flux2.cli;

import dev.flux2.hub.FileVerification;
import dev.flux2.hub.HubOptions;
import dev.flux2.hub.ModelHub;
import dev.flux2.hub.ModelNames;
import dev.flux2.hub.VerificationReport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code flux2 verify [--model DIR|REPO[@REV]]}: hashes every file of a model again and compares it with what it must
 * be, without any request: the pinned list (size, BLAKE3) for the pinned default bundle, and the hub's ETags kept in
 * the cache (or in a {@code --dir} download's bookkeeping) for any repository. Exits 3 naming each file that differs
 * or is missing, and also when nothing records what a file must be (a folder copied by hand): then it says so, and
 * only presence was checked.
 */
@Command(
        name = "verify",
        mixinStandardHelpOptions = true,
        description = {
            "Hash every file of a model and compare it with the recorded digests (pinned list or hub ETags); no request.",
            "Exits 3 naming each file that differs or is missing, or when no digest is recorded for a file."
        })
final class VerifyCommand extends BaseCommand {
    @Option(
            names = "--model",
            paramLabel = "DIR|REPO[@REV]",
            defaultValue = ModelNames.DEFAULT_MODEL,
            description = "Model folder (a hub-cache snapshot, a 'flux2 download --dir' folder or any bundle folder),"
                    + " or a repo id[@revision] looked up in the hub cache. Default: ${DEFAULT-VALUE}.")
    String model;

    @Override
    public Integer call() {
        ModelHub hub = ModelHub.builder()
                .options(HubOptions.builder().offline(true).build())
                .build();
        VerificationReport report = hub.verify(model);
        // Says what was checked: "verified" only when some file was compared with a recorded size or digest.
        out().println(
                        report.compared()
                                ? "verified " + report.directory().toAbsolutePath() + " against " + report.basis() + ":"
                                : "not verified: " + report.directory().toAbsolutePath()
                                        + ": nothing records what its files must be"
                                        + " (not the pinned bundle, and no hub ETag in the cache or in .cache/huggingface/download);"
                                        + " only their presence was checked:");
        for (FileVerification f : report.files()) {
            out().println("  " + f.describe());
        }
        out().flush();
        List<FileVerification> failures = report.failures();
        List<FileVerification> unverifiable = report.files().stream()
                .filter(f -> f.status() == FileVerification.Status.UNVERIFIABLE)
                .toList();
        if (!failures.isEmpty()) {
            err().println("flux2: model error: " + failures.size() + " file(s) fail verification: "
                    + String.join(
                            "; ",
                            failures.stream().map(FileVerification::describe).toList()));
        }
        if (!unverifiable.isEmpty()) {
            err().println("flux2: model error: " + unverifiable.size() + " file(s) cannot be verified: no digest is"
                    + " recorded for them (not the pinned bundle, and no hub ETag in the cache or in "
                    + ".cache/huggingface/download); only their presence was checked: "
                    + String.join(
                            ", ",
                            unverifiable.stream().map(FileVerification::path).toList()));
        }
        if (report.files().isEmpty()) {
            err().println("flux2: model error: " + report.directory() + " holds no model file to verify"
                    + (Files.isDirectory(Path.of(model)) ? "" : " (" + model + ")"));
        }
        err().flush();
        return failures.isEmpty() && unverifiable.isEmpty() && !report.files().isEmpty()
                ? ExitCodes.OK
                : ExitCodes.MODEL;
    }
}
