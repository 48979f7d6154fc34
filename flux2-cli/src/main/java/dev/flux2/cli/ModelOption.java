package dev.flux2.cli;

import dev.flux2.Flux2Models;
import dev.flux2.api.CancellationToken;
import dev.flux2.hub.FileSelection;
import dev.flux2.hub.HubModelResolver;
import dev.flux2.hub.HubOptions;
import dev.flux2.hub.ModelHub;
import dev.flux2.hub.ModelNames;
import dev.flux2.hub.RepoRef;
import dev.flux2.hub.ResolvedModel;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --model} and {@code --offline}, shared by the commands that open a model: a folder, or a Hugging Face repo
 * id {@code owner/name[@revision]} resolved through the shared hub cache (fetched and verified on first use, with
 * the plan and a progress bar on stderr).
 */
final class ModelOption {
    @Option(
            names = "--model",
            paramLabel = "DIR|REPO[@REV]",
            defaultValue = ModelNames.DEFAULT_MODEL,
            description = "Model folder, or Hugging Face repo id[@revision] (fetched once into the hub cache;"
                    + " HF_HUB_CACHE, HF_HOME, HF_ENDPOINT, HF_TOKEN apply). Default: " + ModelNames.DEFAULT_MODEL_REPO
                    + " at commit " + ModelNames.DEFAULT_MODEL_COMMIT + ".")
    String model;

    @Option(
            names = "--offline",
            description = "Make no network request (as HF_HUB_OFFLINE=1): only a complete cache or a folder works.")
    boolean offline;

    /**
     * @param progress whether to draw download progress bars (the plan is printed regardless)
     * @return the model folder
     * @throws dev.flux2.api.ModelLoadException naming what is missing or wrong
     */
    Path resolve(boolean progress) {
        return resolve(progress, (CancellationToken) null);
    }

    /**
     * For the commands that read only part of a model ({@code tokenize}, {@code info}): a repo id fetches only the
     * selected files into the hub cache, not the gigabytes of weights; a folder is used as it is.
     *
     * @param progress whether to draw download progress bars
     * @param selection the files the command reads
     * @return the model folder, holding at least the selected files
     * @throws dev.flux2.api.ModelLoadException naming what is missing or wrong
     */
    Path resolve(boolean progress, FileSelection selection) {
        return resolvePart(progress, selection).directory();
    }

    /**
     * As {@link #resolve(boolean, FileSelection)}, with the sizes the hub's file list gives the files not fetched.
     *
     * @param progress whether to draw download progress bars
     * @param selection the files the command reads
     * @return the model folder and, for a repo id, the listed size of each of the model's files (empty for a folder)
     * @throws dev.flux2.api.ModelLoadException naming what is missing or wrong
     */
    PartialModel resolvePart(boolean progress, FileSelection selection) {
        try (DownloadProgressBars bars = new DownloadProgressBars(System.err, progress)) {
            // Through Flux2Models as every other reference, so that a folder and the rule telling a missing folder
            // from a repo id are the same here; the resolver fetches only the selection and keeps the listed sizes.
            PartResolver part = new PartResolver(
                    ModelHub.builder().options(hubOptions(bars)).build(), selection);
            Path directory = Flux2Models.resolve(model, part);
            return new PartialModel(directory, part.listedSizes);
        }
    }

    /** A repo id resolved to only the selected files, remembering the hub's listed sizes. */
    private static final class PartResolver implements ModelResolver {
        private final ModelHub hub;
        private final FileSelection selection;
        private Map<String, Long> listedSizes = Map.of();

        PartResolver(ModelHub hub, FileSelection selection) {
            this.hub = hub;
            this.selection = selection;
        }

        @Override
        public String name() {
            return "huggingface";
        }

        @Override
        public boolean accepts(String reference) {
            return RepoRef.isValid(reference);
        }

        @Override
        public Path resolve(String reference) {
            ResolvedModel resolved = hub.resolve(RepoRef.parse(reference), selection);
            listedSizes = resolved.listedSizes();
            return resolved.directory();
        }
    }

    /**
     * A model folder that may hold only some of the model's files.
     *
     * @param directory the folder
     * @param listedSizes the hub's size of each of the model's files by path relative to the folder; empty for a
     *     folder given as such
     */
    record PartialModel(Path directory, Map<String, Long> listedSizes) {}

    /**
     * Resolves while a cancellation (Ctrl-C) interrupts this thread, so that a first download stops at once (its
     * partial files kept for the next run) instead of after the whole download.
     *
     * @param progress whether to draw download progress bars
     * @param cancellation the command's token, or null
     * @return the model folder
     * @throws dev.flux2.api.ModelLoadException naming what is missing or wrong (or that the download was
     *     interrupted)
     */
    Path resolve(boolean progress, CancellationToken cancellation) {
        if (cancellation == null) {
            return resolveNow(progress);
        }
        Thread caller = Thread.currentThread();
        AutoCloseable hook = cancellation.onCancel(caller::interrupt);
        try {
            return resolveNow(progress);
        } finally {
            try {
                hook.close();
            } catch (Exception e) {
                throw new IllegalStateException("cannot unregister the cancellation hook", e);
            }
            if (cancellation.isCancelled()) {
                Thread.interrupted(); // the interrupt was this hook's: the command reports the cancellation itself
            }
        }
    }

    private Path resolveNow(boolean progress) {
        try (DownloadProgressBars bars = new DownloadProgressBars(System.err, progress)) {
            return Flux2Models.resolve(model, new HubModelResolver(hubOptions(bars)));
        }
    }

    private HubOptions hubOptions(DownloadProgressBars bars) {
        HubOptions.Builder options = HubOptions.builder().listener(bars);
        if (offline) {
            options.offline(true);
        }
        return options.build();
    }
}
