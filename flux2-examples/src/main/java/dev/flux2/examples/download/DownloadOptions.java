package dev.flux2.examples.download;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where to download a bundle from and how. Immutable; build with {@link #builder(Path)}.
 *
 * @param endpoint the Hugging Face endpoint (default {@value #DEFAULT_ENDPOINT}, or {@code HF_ENDPOINT})
 * @param repo the repository id, {@code owner/name}
 * @param revision a branch, tag or commit
 * @param directory the target folder (created if needed)
 * @param connectTimeout TCP/TLS connect timeout
 * @param responseTimeout time allowed until the response headers arrive
 * @param stallTimeout a transfer that receives no byte for this long is aborted (and resumes on the next try)
 * @param retries extra attempts per file after an interrupted or stalled transfer, each resuming where the last
 *     stopped
 * @param rehashExisting whether files already present are hashed again (known bundles only; otherwise only their
 *     sizes are checked)
 */
public record DownloadOptions(
        URI endpoint,
        String repo,
        String revision,
        Path directory,
        Duration connectTimeout,
        Duration responseTimeout,
        Duration stallTimeout,
        int retries,
        boolean rehashExisting) {

    /** The public Hugging Face endpoint. */
    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    /** The public q4 bundle this SDK is tested against. */
    public static final String DEFAULT_REPO = "MarkShark2/flux2-klein-4b-onnx-webgpu-q4";
    /** The pinned revision of {@link #DEFAULT_REPO} whose files and BLAKE3 digests are known. */
    public static final String DEFAULT_REVISION = "929085adfad60491e9af05095cd280955fc0c29d";

    /** Validates the values. */
    public DownloadOptions {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(responseTimeout, "responseTimeout");
        Objects.requireNonNull(stallTimeout, "stallTimeout");
        if (repo == null || !repo.matches("[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("repo must look like owner/name, got '" + repo + "'");
        }
        if (revision == null || revision.isBlank() || revision.contains("..")) {
            throw new IllegalArgumentException("revision must be a branch, tag or commit, got '" + revision + "'");
        }
        String scheme = endpoint.getScheme();
        if (!"https".equalsIgnoreCase(scheme) && !"http".equalsIgnoreCase(scheme)) {
            throw new IllegalArgumentException("endpoint must be an http(s) URL, got '" + endpoint + "'");
        }
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0, got " + retries);
        }
    }

    /**
     * @param directory the target folder
     * @return a builder with the defaults: the public repository at its pinned revision, the endpoint from
     *     {@code HF_ENDPOINT} or {@value #DEFAULT_ENDPOINT}, 30 s connect and response timeouts, a 60 s stall timeout,
     *     3 retries
     */
    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /**
     * Builds the URL of one file: {@code {endpoint}/{repo}/resolve/{revision}/{path}}, each path segment
     * percent-encoded.
     *
     * @param path the file's path in the repository
     * @return the URL
     */
    public URI resolveUrl(String path) {
        String base = endpoint.toString();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + "/" + repo + "/resolve/" + encodeSegments(revision) + "/" + encodeSegments(path));
    }

    private static String encodeSegments(String path) {
        StringBuilder sb = new StringBuilder();
        for (byte b : path.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean unreserved = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || c == '/';
            if (unreserved) {
                sb.append((char) c);
            } else {
                sb.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return sb.toString();
    }

    /** Mutable builder of {@link DownloadOptions}; validated in {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private final Path directory;
        private URI endpoint;
        private String repo = DEFAULT_REPO;
        private String revision;
        private Duration connectTimeout = Duration.ofSeconds(30);
        private Duration responseTimeout = Duration.ofSeconds(30);
        private Duration stallTimeout = Duration.ofSeconds(60);
        private int retries = 3;
        private boolean rehashExisting;

        private Builder(Path directory) {
            this.directory = directory;
        }

        /** @param endpoint the endpoint URL (default {@code HF_ENDPOINT} or the public hub) @return this */
        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /** @param repo repository id {@code owner/name} @return this */
        public Builder repo(String repo) {
            this.repo = repo;
            return this;
        }

        /**
         * @param revision branch, tag or commit; default: the pinned revision for the default repository,
         *     {@code main} for any other
         * @return this
         */
        public Builder revision(String revision) {
            this.revision = revision;
            return this;
        }

        /** @param timeout connect timeout @return this */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** @param timeout time allowed until response headers arrive @return this */
        public Builder responseTimeout(Duration timeout) {
            this.responseTimeout = timeout;
            return this;
        }

        /** @param timeout abort a transfer that receives nothing for this long @return this */
        public Builder stallTimeout(Duration timeout) {
            this.stallTimeout = timeout;
            return this;
        }

        /** @param retries extra resuming attempts per file after an interrupted transfer @return this */
        public Builder retries(int retries) {
            this.retries = retries;
            return this;
        }

        /** @param rehash hash files already present again (known bundles) @return this */
        public Builder rehashExisting(boolean rehash) {
            this.rehashExisting = rehash;
            return this;
        }

        /**
         * @return the options
         * @throws IllegalArgumentException naming the bad value
         */
        public DownloadOptions build() {
            URI ep = endpoint;
            if (ep == null) {
                String env = System.getenv("HF_ENDPOINT");
                ep = URI.create(env == null || env.isBlank() ? DEFAULT_ENDPOINT : env.trim());
            }
            String rev = revision != null ? revision : DEFAULT_REPO.equals(repo) ? DEFAULT_REVISION : "main";
            return new DownloadOptions(
                    ep, repo, rev, directory, connectTimeout, responseTimeout, stallTimeout, retries, rehashExisting);
        }
    }
}
