package dev.flux2.examples.download;

import dev.flux2.api.Flux2Models;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.api.ModelSummary.FileEntry;
import dev.flux2.examples.download.KnownBundles.KnownBundle;
import dev.flux2.examples.download.KnownBundles.KnownFile;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Downloads a FLUX.2 ONNX bundle from a Hugging Face repository over plain HTTPS
 * ({@code {endpoint}/{repo}/resolve/{revision}/{path}}, following redirects to the CDN).
 *
 * <p>The downloader does not read the bundle's config itself: it fetches {@code flux2-config.json} first and then
 * asks the backend which files the bundle needs ({@link Flux2Models#inspect}, the code that checks a bundle before
 * it is opened), fetching them in the order listed: per graph the graph file, its manifest and, once the manifest
 * is in, every shard it lists; then the tokenizer files. After every file it describes the folder again, so that a
 * file on disk the backend finds wrong (a size differing from the config's {@code onnx_bytes}, a shard set that does
 * not add up to the config's {@code shards} entry, a manifest naming a path outside the folder) stops the download
 * at once with the backend's own message. Graphs the pipeline can do without (a fused denoiser, the VAE encoder)
 * are optional and may be absent from the revision, as may the tokenizer's {@code chat_template.jinja}, which is
 * fetched when present so that the tokenizer folder is complete. Every transfer resumes from its {@code .part} file.
 * For a pinned repository and revision ({@link KnownBundles}) every file's size and BLAKE3 digest is checked as
 * well, and every file the pinned list names is fetched.
 *
 * <p>Not thread-safe; one download per instance at a time. Files already complete in the folder are kept.
 */
public final class HfBundleDownloader {
    private static final Logger LOG = LoggerFactory.getLogger(HfBundleDownloader.class);
    /** The file a bundle folder is recognised by; fetched first, before the backend can describe the bundle. */
    private static final String CONFIG_FILE = "flux2-config.json";
    /** The ONNX backend's detail naming the tokenizer folder. */
    private static final String TOKENIZER_DIR_DETAIL = "tokenizer_dir";
    /** Tokenizer files the SDK does not read but a complete Hugging Face tokenizer folder has, when present. */
    private static final List<String> OPTIONAL_TOKENIZER_EXTRAS = List.of("chat_template.jinja");

    private final DownloadOptions options;
    private final KnownBundles knownBundles;
    private final DownloadListener listener;

    /**
     * @param options where from and where to
     * @param knownBundles pinned file lists ({@link KnownBundles#shipped()} in production)
     * @param listener progress receiver
     */
    public HfBundleDownloader(DownloadOptions options, KnownBundles knownBundles, DownloadListener listener) {
        this.options = Objects.requireNonNull(options, "options");
        this.knownBundles = Objects.requireNonNull(knownBundles, "knownBundles");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /**
     * Downloads (or completes) the bundle and verifies it.
     *
     * @return what was fetched
     * @throws DownloadException naming the file and the problem
     */
    public DownloadReport download() {
        Path dir = options.directory();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new DownloadException(
                    "cannot create the target folder " + dir.toAbsolutePath() + ": " + e.getMessage(), e);
        }
        Optional<KnownBundle> known = knownBundles.find(options.repo(), options.revision());
        LOG.info(
                "downloading {} at {} from {} into {} ({})",
                options.repo(),
                options.revision(),
                options.endpoint(),
                dir.toAbsolutePath(),
                known.isPresent() ? "pinned: sizes and BLAKE3 checked" : "sizes checked against flux2-config.json");
        HttpClient client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NORMAL)
                .connectTimeout(options.connectTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "flux2-download-watchdog");
            t.setDaemon(true);
            return t;
        });
        try {
            Session session = new Session(new ResumableFetcher(client, options, listener, scheduler), known);
            return session.run();
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** One download run: the files handled so far. */
    private final class Session {
        private final ResumableFetcher fetcher;
        private final Optional<KnownBundle> known;
        private final Map<String, DownloadedFile> done = new LinkedHashMap<>();

        Session(ResumableFetcher fetcher, Optional<KnownBundle> known) {
            this.fetcher = fetcher;
            this.known = known;
        }

        DownloadReport run() {
            fetch(CONFIG_FILE, false);
            ModelSummary summary = describe();
            while (true) {
                // Files from an earlier run are accounted for (and, when pinned, checked) before anything else.
                for (FileEntry f : summary.files()) {
                    if (f.present() && !done.containsKey(f.path())) {
                        fetch(f.path(), f.optional());
                    }
                }
                // A file on disk the backend finds wrong cannot be fixed by fetching more.
                requireNoProblem(summary);
                Optional<FileEntry> next = summary.files().stream()
                        .filter(f -> !f.present() && !done.containsKey(f.path()))
                        .findFirst();
                if (next.isEmpty()) {
                    break;
                }
                fetch(next.get().path(), next.get().optional());
                summary = describe();
            }
            String tokenizerDir = summary.details().get(TOKENIZER_DIR_DETAIL);
            if (tokenizerDir != null) {
                OPTIONAL_TOKENIZER_EXTRAS.forEach(f -> fetch(tokenizerDir + "/" + f, true));
            }
            known.ifPresent(k -> k.files().keySet().stream()
                    .filter(p -> !done.containsKey(p))
                    .forEach(p -> fetch(p, false)));
            // The final word on sizes: every file the backend needs is there and none is wrong.
            ModelSummary complete = describe();
            for (FileEntry f : complete.files()) {
                if (!f.ok()) {
                    throw new DownloadException(
                            f.path() + " of " + options.repo() + "@" + options.revision() + ": " + f.problem());
                }
            }
            complete.files().stream()
                    .filter(f -> f.optional() && !f.present())
                    .forEach(f -> LOG.info(
                            "{} is not in {} at {}; the pipeline runs without it",
                            f.path(),
                            options.repo(),
                            options.revision()));
            return new DownloadReport(options.directory(), new ArrayList<>(done.values()), known.isPresent());
        }

        /** The backend's description of the folder so far; a config it cannot read ends the download. */
        private ModelSummary describe() {
            try {
                return Flux2Models.inspect(options.directory());
            } catch (DownloadException e) {
                throw e;
            } catch (ModelLoadException e) {
                throw new DownloadException(
                        CONFIG_FILE + " of " + options.repo() + "@" + options.revision()
                                + " does not describe a bundle this SDK can load: " + e.getMessage(),
                        e);
            }
        }

        private void requireNoProblem(ModelSummary summary) {
            for (FileEntry f : summary.files()) {
                if (f.present() && !f.ok()) {
                    throw new DownloadException(
                            f.path() + " of " + options.repo() + "@" + options.revision() + ": " + f.problem());
                }
            }
        }

        /** Fetches one file unless done; returns empty only for an optional file the server does not have. */
        private Optional<DownloadedFile> fetch(String path, boolean optional) {
            if (done.containsKey(path)) {
                DownloadedFile f = done.get(path);
                return f.outcome() == DownloadedFile.Outcome.ABSENT_OPTIONAL ? Optional.empty() : Optional.of(f);
            }
            Path target = options.directory().resolve(path);
            Optional<KnownFile> pinned = known.map(k -> k.files().get(path));
            DownloadedFile result;
            try {
                Files.createDirectories(target.getParent());
                if (Files.isRegularFile(target)) {
                    checkExisting(path, target, pinned);
                    result = new DownloadedFile(path, DownloadedFile.Outcome.ALREADY_PRESENT, Files.size(target), 0);
                    listener.fileDone(result);
                } else {
                    Optional<DownloadedFile> fetched = fetcher.fetch(
                            path, target, part -> pinned.ifPresent(p -> verifyPinned(path, part, p, true)));
                    if (fetched.isEmpty()) {
                        // A file the pinned list names must exist, even one that is optional elsewhere.
                        if (!optional || pinned.isPresent()) {
                            throw new DownloadException(path + " is not in " + options.repo() + " at revision "
                                    + options.revision() + " (HTTP 404 for " + options.resolveUrl(path) + ")");
                        }
                        result = new DownloadedFile(path, DownloadedFile.Outcome.ABSENT_OPTIONAL, 0, 0);
                        listener.fileDone(result);
                    } else {
                        result = fetched.get();
                    }
                }
            } catch (IOException e) {
                throw new DownloadException("cannot write " + target + ": " + e.getMessage(), e);
            }
            done.put(path, result);
            return result.outcome() == DownloadedFile.Outcome.ABSENT_OPTIONAL ? Optional.empty() : Optional.of(result);
        }

        private void checkExisting(String path, Path target, Optional<KnownFile> pinned) throws IOException {
            if (pinned.isEmpty()) {
                return;
            }
            long size = Files.size(target);
            if (size != pinned.get().bytes()) {
                throw new DownloadException(target + " already exists with " + size + " bytes, but " + path
                        + " of " + options.repo() + "@" + options.revision() + " has "
                        + pinned.get().bytes()
                        + " bytes; delete it and run the download again");
            }
            if (options.rehashExisting()) {
                verifyPinned(path, target, pinned.get(), false);
            }
        }

        private void verifyPinned(String path, Path file, KnownFile pinned, boolean deleteOnMismatch) {
            try {
                long size = Files.size(file);
                String problem = null;
                if (size != pinned.bytes()) {
                    problem = "size mismatch: expected " + pinned.bytes() + " bytes, got " + size;
                } else {
                    String digest = Blake3Files.hexDigest(file);
                    if (!digest.equals(pinned.blake3())) {
                        problem = "BLAKE3 mismatch: expected " + pinned.blake3() + ", got " + digest;
                    }
                }
                if (problem != null) {
                    if (deleteOnMismatch) {
                        Files.deleteIfExists(file);
                    }
                    throw new DownloadException(path + " of " + options.repo() + "@" + options.revision() + ": "
                            + problem + (deleteOnMismatch ? " (the bad transfer was deleted)" : ""));
                }
            } catch (IOException e) {
                throw new DownloadException("cannot verify " + file + ": " + e.getMessage(), e);
            }
        }
    }
}
