package dev.flux2.examples.service;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How the image service listens and admits work. Build with {@link #builder()}.
 *
 * @param address where to listen (port 0 picks a free port)
 * @param workers generations that run at the same time on the shared pipeline
 * @param queueCapacity requests that may wait for a worker; beyond {@code workers + queueCapacity} a request is
 *     answered 429 at once
 * @param requestTimeout time from admission to response; when it passes the generation is cancelled and the
 *     answer is 504
 * @param modelLabel what {@code GET /health} reports as the model
 */
public record ServiceConfig(
        InetSocketAddress address, int workers, int queueCapacity, Duration requestTimeout, String modelLabel) {

    /** Validates the values. */
    public ServiceConfig {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        Objects.requireNonNull(modelLabel, "modelLabel");
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be >= 1, got " + workers);
        }
        if (queueCapacity < 0) {
            throw new IllegalArgumentException("queueCapacity must be >= 0, got " + queueCapacity);
        }
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive, got " + requestTimeout);
        }
    }

    /** @return a builder: 127.0.0.1:8080, 1 worker, queue of 4, 300 s timeout */
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

        private Builder() {}

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

        /** @param workers concurrent generations @return this */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** @param capacity waiting requests before 429 @return this */
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

        /** @return the config @throws IllegalArgumentException naming a bad value */
        public ServiceConfig build() {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be in 0..65535, got " + port);
            }
            return new ServiceConfig(
                    new InetSocketAddress(host, port), workers, queueCapacity, requestTimeout, modelLabel);
        }
    }
}
