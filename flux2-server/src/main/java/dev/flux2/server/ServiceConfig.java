package dev.flux2.server;

import dev.flux2.api.GenerationLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How the image service listens, admits work and protects itself. Build with {@link #builder()}.
 *
 * @param address where to listen (port 0 picks a free port)
 * @param workers generations that run at the same time on the shared pipeline
 * @param queueCapacity requests that may wait for a worker; beyond {@code workers + queueCapacity} a request is
 *     answered 429 at once
 * @param requestTimeout time from admission to response; when it passes the generation is cancelled and the
 *     answer is 504
 * @param modelLabel what {@code GET /health} reports as the model
 * @param idleTimeout a connection on which nothing arrives for this long is closed (headers, body, or between
 *     requests); shortened to a tenth while the connection cap is reached
 * @param bodyTimeout the whole request body must arrive within this time after the handler starts reading it,
 *     else 408 (a client trickling a byte at a time cannot hold a thread longer)
 * @param maxConnections open connections accepted at once; beyond it the server stops accepting until one closes
 * @param maxBodyBytes the largest request body; a larger declared {@code Content-Length} is answered 413 before
 *     anything is read
 * @param limits what a request may ask for (size, steps…); checked before admission, a refusal is a 400 naming the
 *     limit
 * @param modelName the model id of {@code GET /v1/models} and of the OpenAI answers
 * @param headerTimeout the request line and headers must arrive within this time in total (a client dripping a
 *     header line now and then is closed even though it is never silent for the idle timeout)
 * @param maxUploadBytes the largest multipart body ({@code POST /v1/images/edits} with image files)
 * @param apiKey the key clients must send as {@code Authorization: Bearer KEY}, or null for none (never printed)
 * @param allowUnauthenticated whether a non-loopback address without a key is allowed
 * @param corsOrigin the one origin CORS requests are answered for, or null (CORS off)
 * @param strictModel whether a request's {@code model} must be {@code modelName}
 * @param bodyBudgetBytes the request bodies held in memory at once, in bytes (each request reserves its declared
 *     length, or its cap, before a byte is read; one that does not fit is answered 429); at least
 *     {@code maxUploadBytes}
 * @param ui whether {@code GET /} answers the playground page ({@link PlaygroundPage})
 */
public record ServiceConfig(
        InetSocketAddress address,
        int workers,
        int queueCapacity,
        Duration requestTimeout,
        String modelLabel,
        Duration idleTimeout,
        Duration bodyTimeout,
        int maxConnections,
        int maxBodyBytes,
        GenerationLimits limits,
        String modelName,
        Duration headerTimeout,
        int maxUploadBytes,
        String apiKey,
        boolean allowUnauthenticated,
        String corsOrigin,
        boolean strictModel,
        long bodyBudgetBytes,
        boolean ui) {

    /** The most workers: each runs a generation on the one shared pipeline at the same time. */
    public static final int MAX_WORKERS = 256;
    /** The longest queue: requests waiting beyond the workers. */
    public static final int MAX_QUEUE_CAPACITY = 4096;
    /** The most connections open at once (each may hold a thread). */
    public static final int MAX_CONNECTIONS = 16_384;

    /** Validates the values. */
    public ServiceConfig {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(modelLabel, "modelLabel");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(bodyTimeout, "bodyTimeout");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(modelName, "modelName");
        Objects.requireNonNull(headerTimeout, "headerTimeout");
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be in 1.." + MAX_WORKERS + ", got " + workers);
        }
        if (queueCapacity < 0 || queueCapacity > MAX_QUEUE_CAPACITY) {
            throw new IllegalArgumentException(
                    "queueCapacity must be in 0.." + MAX_QUEUE_CAPACITY + ", got " + queueCapacity);
        }
        if (maxConnections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException(
                    "maxConnections must be at most " + MAX_CONNECTIONS + ", got " + maxConnections);
        }
        positive("requestTimeout", requestTimeout);
        positive("idleTimeout", idleTimeout);
        positive("bodyTimeout", bodyTimeout);
        if (maxConnections < workers + queueCapacity + 1) {
            throw new IllegalArgumentException("maxConnections must be at least workers + queueCapacity + 1 = "
                    + (workers + queueCapacity + 1) + " (one left for /health), got " + maxConnections);
        }
        if (maxBodyBytes < 64) {
            throw new IllegalArgumentException("maxBodyBytes must be >= 64, got " + maxBodyBytes);
        }
        positive("headerTimeout", headerTimeout);
        if (maxUploadBytes < maxBodyBytes) {
            throw new IllegalArgumentException(
                    "maxUploadBytes must be >= maxBodyBytes = " + maxBodyBytes + ", got " + maxUploadBytes);
        }
        if (bodyBudgetBytes < maxUploadBytes) {
            throw new IllegalArgumentException("bodyBudgetBytes must be >= maxUploadBytes = " + maxUploadBytes
                    + " (one upload must fit), got " + bodyBudgetBytes);
        }
        if (apiKey != null) {
            checkedApiKey(apiKey, "apiKey");
        }
        if (corsOrigin != null && !corsOrigin.matches("https?://[A-Za-z0-9.\\-\\[\\]:]+")) {
            throw new IllegalArgumentException(
                    "corsOrigin must be an origin like https://app.example or http://localhost:3000, got '" + corsOrigin
                            + "'");
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("the host '" + address.getHostString() + "' cannot be resolved to an"
                    + " address of this machine (unknown host); give an IP address such as 127.0.0.1 or 0.0.0.0, or"
                    + " a name that resolves, such as localhost");
        }
        if (apiKey == null && !allowUnauthenticated && !isLoopback(address)) {
            throw new IllegalArgumentException("listening on " + address.getHostString()
                    + " (not a loopback address) without an API key is refused: give --api-key-file or"
                    + " FLUX2_API_KEY, or --allow-unauthenticated to serve anyone who can reach it");
        }
    }

    /**
     * The model id a server answers with when none is given: {@code flux2-klein-<variant>} from a bundle's variant
     * label, without repeating what the label already says ({@code klein-4b-distilled} gives
     * {@code flux2-klein-4b-distilled}, not {@code flux2-klein-klein-…}; {@code flux.2-klein-4b} gives
     * {@code flux2-klein-4b}), lower-cased, with characters other than letters, digits, {@code .}, {@code _} and
     * {@code -} replaced by {@code -} (a composed bundle's {@code +} included).
     *
     * @param variant the bundle's variant label ({@link dev.flux2.api.ModelInfo#variant()})
     * @return the model id
     */
    public static String modelId(String variant) {
        String v = variant.strip().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-");
        v = v.replaceAll("-{2,}", "-").replaceAll("^[-.]+|[-.]+$", "");
        if (v.startsWith("flux.2")) {
            v = "flux2" + v.substring("flux.2".length());
        }
        if (v.startsWith("flux2-") || v.equals("flux2")) {
            v = v.substring("flux2".length()).replaceAll("^-", "");
        }
        if (v.startsWith("klein-") || v.equals("klein")) {
            v = v.substring("klein".length()).replaceAll("^-", "");
        }
        return v.isEmpty() ? "flux2-klein" : "flux2-klein-" + v;
    }

    /** @return whether {@code address} only accepts connections from this machine */
    static boolean isLoopback(InetSocketAddress address) {
        InetAddress a = address.getAddress();
        return a != null && a.isLoopbackAddress();
    }

    /**
     * Checks an API key as read from a file or the environment: a trailing newline and a leading byte-order mark
     * are removed; an empty key or one with control characters or spaces is refused without showing the key.
     *
     * @param raw the key as read
     * @param source where it came from, named in the refusal
     * @return the key
     * @throws IllegalArgumentException naming the source, never the key
     */
    public static String checkedApiKey(String raw, String source) {
        String key = raw;
        if (key.startsWith("\uFEFF")) {
            key = key.substring(1);
        }
        key = key.strip();
        if (key.isEmpty()) {
            throw new IllegalArgumentException(source + " holds an empty API key");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new IllegalArgumentException(source + " holds an API key with a space, control or non-ASCII"
                        + " character at index " + i + " (keys are printable ASCII, as HTTP headers carry them)");
            }
        }
        return key;
    }

    /** Like the record's, without the API key. */
    @Override
    public String toString() {
        return "ServiceConfig[address=" + address + ", workers=" + workers + ", queueCapacity=" + queueCapacity
                + ", modelName=" + modelName + ", apiKey=" + (apiKey == null ? "none" : "(set)") + ", corsOrigin="
                + corsOrigin + ", bodyBudgetBytes=" + bodyBudgetBytes + ", ui=" + ui + "]";
    }

    private static void positive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /**
     * @return a builder: 127.0.0.1:8080, 1 worker, queue of 4, 300 s request timeout, 30 s idle timeout, 10 s body
     *     timeout, 64 connections, 64 KiB bodies, {@link GenerationLimits#defaults()}
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder of {@link ServiceConfig}; validated in {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 8080;
        private int workers = 1;
        private int queueCapacity = 4;
        private Duration requestTimeout = Duration.ofSeconds(300);
        private String modelLabel = "flux2";
        private Duration idleTimeout = Duration.ofSeconds(30);
        private Duration bodyTimeout = Duration.ofSeconds(10);
        private int maxConnections = 64;
        private int maxBodyBytes = 64 * 1024;
        private GenerationLimits limits;
        private String modelName = "flux2-klein";
        private Duration headerTimeout = Duration.ofSeconds(10);
        private int maxUploadBytes = 32 * 1024 * 1024;
        private String apiKey;
        private boolean allowUnauthenticated;
        private String corsOrigin;
        private boolean strictModel;
        private boolean ui = true;
        private long bodyBudgetBytes;

        private Builder() {}

        /**
         * @param bytes the request bodies held in memory at once (default: a quarter of the maximum Java heap, at
         *     least {@code maxUploadBytes})
         * @return this
         */
        public Builder bodyBudgetBytes(long bytes) {
            this.bodyBudgetBytes = bytes;
            return this;
        }

        /** @param name the model id of {@code /v1/models} (default flux2-klein) @return this */
        public Builder modelName(String name) {
            this.modelName = name;
            return this;
        }

        /** @param timeout the request line and headers must arrive within this time (default 10 s) @return this */
        public Builder headerTimeout(Duration timeout) {
            this.headerTimeout = timeout;
            return this;
        }

        /** @param bytes the largest multipart body (default 32 MiB) @return this */
        public Builder maxUploadBytes(int bytes) {
            this.maxUploadBytes = bytes;
            return this;
        }

        /** @param key the bearer key clients must send, or null for none (default) @return this */
        public Builder apiKey(String key) {
            this.apiKey = key;
            return this;
        }

        /** @param allow allow a non-loopback address without a key (default false) @return this */
        public Builder allowUnauthenticated(boolean allow) {
            this.allowUnauthenticated = allow;
            return this;
        }

        /** @param origin the origin CORS requests are answered for, or null for CORS off (default) @return this */
        public Builder corsOrigin(String origin) {
            this.corsOrigin = origin;
            return this;
        }

        /**
         * @param on whether {@code GET /} answers the playground page (default true; {@code flux2 serve --no-ui}: false)
         * @return this
         */
        public Builder ui(boolean on) {
            this.ui = on;
            return this;
        }

        /** @param strict refuse a request whose {@code model} is another name (default false) @return this */
        public Builder strictModel(boolean strict) {
            this.strictModel = strict;
            return this;
        }

        /** @param host interface to bind (default 127.0.0.1; 0.0.0.0 for all) @return this */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** @param port TCP port, 0 for any free one @return this */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** @param workers concurrent generations, 1..{@value ServiceConfig#MAX_WORKERS} @return this */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** @param capacity waiting requests before 429, 0..{@value ServiceConfig#MAX_QUEUE_CAPACITY} @return this */
        public Builder queueCapacity(int capacity) {
            this.queueCapacity = capacity;
            return this;
        }

        /** @param timeout admission-to-response limit @return this */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /** @param label model name for {@code /health} @return this */
        public Builder modelLabel(String label) {
            this.modelLabel = label;
            return this;
        }

        /** @param timeout close a connection silent for this long (default 30 s) @return this */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = timeout;
            return this;
        }

        /** @param timeout the whole body must arrive within this time (default 10 s) @return this */
        public Builder bodyTimeout(Duration timeout) {
            this.bodyTimeout = timeout;
            return this;
        }

        /** @param connections open connections at once (default 64) @return this */
        public Builder maxConnections(int connections) {
            this.maxConnections = connections;
            return this;
        }

        /** @param bytes the largest request body (default 64 KiB) @return this */
        public Builder maxBodyBytes(int bytes) {
            this.maxBodyBytes = bytes;
            return this;
        }

        /** @param limits what a request may ask for (default {@link GenerationLimits#defaults()}) @return this */
        public Builder limits(GenerationLimits limits) {
            this.limits = limits;
            return this;
        }

        /** @return the config @throws IllegalArgumentException naming a bad value */
        public ServiceConfig build() {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535, got " + port);
            }
            return new ServiceConfig(
                    new InetSocketAddress(host, port),
                    workers,
                    queueCapacity,
                    requestTimeout,
                    modelLabel,
                    idleTimeout,
                    bodyTimeout,
                    maxConnections,
                    maxBodyBytes,
                    limits != null ? limits : GenerationLimits.defaults(),
                    modelName,
                    headerTimeout,
                    maxUploadBytes,
                    apiKey,
                    allowUnauthenticated,
                    corsOrigin,
                    strictModel,
                    bodyBudgetBytes != 0
                            ? bodyBudgetBytes
                            : Math.max(maxUploadBytes, Runtime.getRuntime().maxMemory() / 4),
                    ui);
        }
    }
}
