package dev.flux2.hub;

import dev.flux2.Flux2Models;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Models by name: resolves a Hugging Face repository id to a verified local folder through the hub cache that
 * {@code huggingface_hub} uses (a model fetched by either is used by the other), or downloads one into a plain
 * folder, or verifies what is on disk. One implementation behind {@code Flux2Pipeline.builder().model(String)}
 * (through {@link HubModelResolver}) and the {@code flux2} command line.
 *
 * <pre>{@code
 * ModelHub hub = ModelHub.builder().options(HubOptions.builder().listener(myListener).build()).build();
 * Path folder = hub.resolve(RepoRef.parse("MarkShark2/flux2-klein-4b-onnx-webgpu-q4@929085ad…")).directory();
 * }</pre>
 *
 * <p><b>Resolution</b>: a commit id, or a branch or tag recorded in {@code refs/}, whose snapshot is complete
 * (every file there and verified, and the backend's own check passing) is used without a single request.
 * Otherwise the revision's file list is fetched ({@code /api/models/{repo}/revision/{revision}?blobs=true}), the
 * files a model needs are selected (ONNX graphs and external data, JSON configs and manifests, tokenizer files;
 * not the model card, images or {@code .gitattributes}), and each missing one is fetched with {@code Range}
 * resumption into {@code blobs/{etag}.incomplete}, checked (size, SHA-256 of LFS files or git SHA-1 of others, as
 * the hub's ETag defines them; BLAKE3 for the pinned default bundle), moved atomically into {@code blobs/{etag}} and
 * linked from {@code snapshots/{commit}/{path}}. A file is locked while it is fetched, so that processes and threads
 * resolving the same model at once end with one valid copy.
 *
 * <p>Thread-safe and stateless between calls; each call may make its own requests.
 */
public final class ModelHub {
    private final HubSettings settings;

    private ModelHub(HubSettings settings) {
        this.settings = settings;
    }

    /** @return a builder with the defaults (options from the environment, 3 retries, 60 s stall timeout) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the hub cache folder in use */
    public Path cacheDir() {
        return settings.cacheDir();
    }

    /** @return the endpoint in use */
    public URI endpoint() {
        return settings.endpoint();
    }

    /** @return whether no request may be made */
    public boolean offline() {
        return settings.offline();
    }

    /**
     * Finds the model in the hub cache, fetching and verifying what is missing.
     *
     * @param ref the repository and revision
     * @return the snapshot folder and what was done
     * @throws HubException naming the file and the expected and actual values, or what an offline cache lacks
     */
    public ResolvedModel resolve(RepoRef ref) {
        return new Resolver(settings).resolveCached(Objects.requireNonNull(ref, "ref"));
    }

    /**
     * Finds some of the model's files in the hub cache, fetching and verifying those that are missing: a command
     * that reads only the configuration or the tokenizer does not fetch gigabytes of weights. Without a request
     * when flux2-java recorded the commit's file list and every selected file is in place; otherwise the file list
     * is asked for (and recorded, when it describes every file) and only the missing selected files are fetched.
     * The folder is the same snapshot folder a complete resolution fills; the files not selected may be missing
     * from it, so the backend's check of the whole folder does not apply.
     *
     * @param ref the repository and revision
     * @param selection the files wanted, e.g. {@link FileSelection#CONFIG_AND_TOKENIZER}
     * @return the snapshot folder and what was done ({@link ResolvedModel#fileCount()} counts the selected files)
     * @throws HubException naming the file and the expected and actual values, what an offline cache lacks, or
     *     that the revision has none of the selected files
     */
    public ResolvedModel resolve(RepoRef ref, FileSelection selection) {
        return new Resolver(settings)
                .resolveCached(Objects.requireNonNull(ref, "ref"), Objects.requireNonNull(selection, "selection"));
    }

    /**
     * Downloads the model into a plain folder (no links, no cache), resumably and with the same verification;
     * files already there and matching are kept.
     *
     * @param ref the repository and revision
     * @param dir the target folder (created if needed)
     * @return the folder and what was done
     * @throws HubException naming the file and the expected and actual values
     */
    public ResolvedModel download(RepoRef ref, Path dir) {
        return new Resolver(settings).download(Objects.requireNonNull(ref, "ref"), Objects.requireNonNull(dir, "dir"));
    }

    /**
     * Hashes every file again and compares it with the pinned list (size and BLAKE3, for the pinned default
     * bundle) and with the hub's ETags kept in the cache or in a plain folder's bookkeeping. Makes no request.
     *
     * @param model a folder (a snapshot folder of a hub cache, or a plain folder), or a repo id[@revision] looked up
     *     in the cache
     * @return one verdict per file
     * @throws HubException when the cache holds no snapshot for the repo id
     */
    public VerificationReport verify(String model) {
        Objects.requireNonNull(model, "model");
        Verifier verifier = new Verifier(settings.knownBundles());
        Path folder = Path.of(model);
        if (Files.isDirectory(folder)) {
            Path snapshots = folder.toAbsolutePath().normalize().getParent();
            Path repoDir = snapshots == null ? null : snapshots.getParent();
            if (repoDir != null
                    && snapshots.getFileName().toString().equals("snapshots")
                    && repoDir.getFileName().toString().startsWith("models--")
                    && RepoRef.isCommitId(folder.getFileName().toString())) {
                String repo = repoDir.getFileName()
                        .toString()
                        .substring("models--".length())
                        .replaceFirst("--", "/");
                return verifier.cached(
                        new CacheRepo(repoDir.getParent(), repo),
                        new RepoRef(repo, folder.getFileName().toString()));
            }
            return verifier.folder(folder);
        }
        RepoRef ref = RepoRef.parse(model);
        return verifier.cached(new CacheRepo(settings.cacheDir(), ref.repo()), ref);
    }

    /** Builder of {@link ModelHub}; validated in {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private HubOptions options = HubOptions.defaults();
        private Map<String, String> environment;
        private Path userHome;
        private int retries = 3;
        private Duration stallTimeout = Duration.ofSeconds(60);
        private Duration connectTimeout = Duration.ofSeconds(30);
        private Duration responseTimeout = Duration.ofSeconds(60);
        private Duration maxFileTime = Duration.ofHours(6);
        private Duration metadataTimeout = Duration.ofSeconds(60);
        private Duration maxRetryAfter = Duration.ofMinutes(2);
        private KnownBundles knownBundles;
        private Function<Path, List<String>> folderCheck = Flux2Models::check;
        private HubApi.Sleeper sleeper = Thread::sleep;

        private Builder() {}

        /** @param options cache folder, offline, token, endpoint, listener (unset ones: the environment) @return this */
        public Builder options(HubOptions options) {
            this.options = options;
            return this;
        }

        /**
         * Reads the {@code HF_*} variables from this map instead of the process environment (for embedding and
         * tests).
         *
         * @param environment variable values
         * @return this
         */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(environment);
            return this;
        }

        /** @param home the home folder {@code ~} stands for (default {@code user.home}) @return this */
        public Builder userHome(Path home) {
            this.userHome = home;
            return this;
        }

        /** @param retries resuming retries per file after an interrupted transfer (default 3) @return this */
        public Builder retries(int retries) {
            this.retries = retries;
            return this;
        }

        /** @param timeout abort (and retry) a transfer that receives nothing for this long (default 60 s) @return this */
        public Builder stallTimeout(Duration timeout) {
            this.stallTimeout = timeout;
            return this;
        }

        /** @param timeout TCP/TLS connect timeout (default 30 s) @return this */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** @param timeout time allowed until response headers arrive (default 60 s) @return this */
        public Builder responseTimeout(Duration timeout) {
            this.responseTimeout = timeout;
            return this;
        }

        /** @param limit total time allowed per file, retries included (default 6 h) @return this */
        public Builder maxFileTime(Duration limit) {
            this.maxFileTime = limit;
            return this;
        }

        /**
         * @param limit total time allowed for one metadata answer (the file list, a {@code HEAD}), its body, its
         *     retries and the waits between them included: a list that stalls or drips is abandoned (default 60 s;
         *     the stall timeout applies too)
         * @return this
         */
        public Builder metadataTimeout(Duration limit) {
            this.metadataTimeout = limit;
            return this;
        }

        /**
         * @param limit the longest {@code Retry-After} (seconds or HTTP date) waited for before a retry; a hub
         *     asking for more is given up on at once, saying how long it asked for (default 2 min)
         * @return this
         */
        public Builder maxRetryAfter(Duration limit) {
            this.maxRetryAfter = limit;
            return this;
        }

        /** @param known pinned file lists (default: {@link KnownBundles#shipped()}) @return this */
        public Builder knownBundles(KnownBundles known) {
            this.knownBundles = known;
            return this;
        }

        /**
         * @param check the model-folder check run on a snapshot before it counts as complete: one line per problem
         *     (default {@link Flux2Models#check}, the installed backend's own check)
         * @return this
         */
        public Builder folderCheck(Function<Path, List<String>> check) {
            this.folderCheck = check;
            return this;
        }

        Builder sleeper(HubApi.Sleeper sleeper) {
            this.sleeper = sleeper;
            return this;
        }

        /**
         * @return the hub
         * @throws IllegalArgumentException naming a bad value
         * @throws HubException when the endpoint is not an http(s) URL or the token holds a control character
         *     (neither the token nor the endpoint's password is shown)
         */
        public ModelHub build() {
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(folderCheck, "folderCheck");
            if (retries < 0) {
                throw new IllegalArgumentException("retries must be >= 0, got " + retries);
            }
            for (Duration d : List.of(stallTimeout, connectTimeout, responseTimeout, maxFileTime, metadataTimeout)) {
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("timeouts must be positive, got " + d);
                }
            }
            if (maxRetryAfter.isNegative()) {
                throw new IllegalArgumentException("maxRetryAfter must be >= 0, got " + maxRetryAfter);
            }
            HubEnvironment env = environment == null && userHome == null
                    ? HubEnvironment.system()
                    : new HubEnvironment(
                            environment == null ? System.getenv() : environment,
                            userHome == null ? Path.of(System.getProperty("user.home")) : userHome);
            HubEnvironment.Endpoint endpoint = env.endpointWithCredentials(options);
            return new ModelHub(new HubSettings(
                    env.cacheDir(options),
                    endpoint.uri(),
                    env.token(options),
                    endpoint.basicAuth(),
                    env.offline(options),
                    options.listener(),
                    retries,
                    stallTimeout,
                    connectTimeout,
                    responseTimeout,
                    maxFileTime,
                    metadataTimeout,
                    maxRetryAfter,
                    knownBundles == null ? KnownBundles.shipped() : knownBundles,
                    folderCheck,
                    sleeper));
        }
    }
}
