package dev.flux2.examples.download;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.examples.bundle.BundleConfigFile;
import dev.flux2.examples.bundle.BundleConfigFile.GraphFile;
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
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Downloads a FLUX.2 ONNX bundle from a Hugging Face repository over plain HTTPS
 * ({@code {endpoint}/{repo}/resolve/{revision}/{path}}, following redirects to the CDN).
 *
 * <p>Order: {@code flux2-config.json}; the tokenizer files ({@code tokenizer.json}, {@code tokenizer_config.json},
 * and {@code chat_template.jinja} when present); then per graph the graph file, its manifest and every shard the
 * manifest lists. Graphs the pipeline can do without (a fused denoiser, the VAE encoder) may be absent from the
 * revision. Every transfer resumes from its {@code .part} file. Each shard set is checked against the config's
 * {@code shards} entry; for a pinned repository and revision ({@link KnownBundles}) every file's size and BLAKE3
 * digest is checked as well.
 *
 * <p>Not thread-safe; one download per instance at a time. Files already complete in the folder are kept.
 */
public final class HfBundleDownloader {
    private static final Logger LOG = LoggerFactory.getLogger(HfBundleDownloader.class);
    private static final List<String> REQUIRED_TOKENIZER_FILES = List.of("tokenizer.json", "tokenizer_config.json");
    private static final List<String> OPTIONAL_TOKENIZER_FILES = List.of("chat_template.jinja");

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
            fetch(BundleConfigFile.FILE_NAME, false);
            BundleConfigFile config = BundleConfigFile.read(options.directory());
            String tok = config.tokenizerDir();
            REQUIRED_TOKENIZER_FILES.forEach(f -> fetch(tok + "/" + f, false));
            OPTIONAL_TOKENIZER_FILES.forEach(f -> fetch(tok + "/" + f, true));
            for (GraphFile graph : config.graphs()) {
                fetchGraph(graph);
            }
            known.ifPresent(k -> k.files().keySet().stream()
                    .filter(p -> !done.containsKey(p))
                    .forEach(p -> fetch(p, false)));
            return new DownloadReport(options.directory(), new ArrayList<>(done.values()), known.isPresent());
        }

        private void fetchGraph(GraphFile graph) {
            Optional<DownloadedFile> file = fetch(graph.file(), isOptional(graph.key()));
            if (file.isEmpty()) {
                LOG.info(
                        "graph '{}' ({}) is not in {} at {}; the pipeline runs without it",
                        graph.key(),
                        graph.file(),
                        options.repo(),
                        options.revision());
                return;
            }
            ShardSetCheck.checkInline(graph, file.get().bytes());
            if (graph.manifest().isEmpty()) {
                return;
            }
            String manifest = graph.manifest().get();
            fetch(manifest, false);
            List<Long> sizes = new ArrayList<>();
            for (String shard : readManifest(manifest)) {
                sizes.add(fetch(shard, false).orElseThrow().bytes());
            }
            ShardSetCheck.checkShards(graph, sizes, manifest);
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

        private List<String> readManifest(String manifest) {
            Path file = options.directory().resolve(manifest);
            JsonNode list;
            try {
                list = new ObjectMapper().readTree(file.toFile());
            } catch (IOException e) {
                throw new DownloadException("manifest " + file + " is not valid JSON: " + e.getMessage(), e);
            }
            if (list == null || !list.isArray() || list.isEmpty()) {
                throw new DownloadException(
                        "manifest " + file + " must be a non-empty JSON array of shard file " + "names, found " + list);
            }
            List<String> names = new ArrayList<>();
            for (JsonNode n : list) {
                String name = n.asText("");
                // Shards sit next to their graph (ONNX Runtime rejects external data outside the model folder).
                if (!n.isTextual()
                        || name.isEmpty()
                        || name.contains("/")
                        || name.contains("\\")
                        || Set.of(".", "..").contains(name)) {
                    throw new DownloadException(
                            "manifest " + file + " lists '" + n + "', expected a plain file name in the bundle folder");
                }
                names.add(name);
            }
            return names;
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

    /** Graphs the pipeline can run without; a revision may lack them (the pinned q4 revision lacks both). */
    static boolean isOptional(String graphKey) {
        return graphKey.startsWith("transformer_fused") || graphKey.equals("vae_encoder");
    }
}
