package dev.flux2.spark;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.options.OnnxOptions;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link Flux2Batch#generate} runs: which model every executor loads, where images go, and how much runs at
 * once. Immutable and serializable (it travels to the executors); build it with {@link #builder(String, String)}.
 *
 * @param model the model: a folder that every executor reads at the same path (holding {@code flux2-config.json}),
 *     or a Hugging Face repo id {@code owner/name[@revision]} that each executor host resolves once into its local
 *     hub cache
 * @param output the output folder URI (any Hadoop {@code FileSystem}: a local path, {@code hdfs://…},
 *     {@code s3a://…}); images go to {@code <output>/images/<id>.png}
 * @param concurrency generations at once per executor JVM, sharing its one pipeline (≥ 1)
 * @param failFast whether the first failed row fails the job instead of becoming a {@code failed} result row
 * @param partitions how many tasks the rows are spread over; 0 = twice Spark's default parallelism, at most one per
 *     row
 * @param backendOptions backend options passed to {@code Flux2Pipeline.Builder.backendOption(key, value)}, for
 *     example the ONNX backend's {@code threads} (threads per inference call; by default ONNX Runtime uses every
 *     core of the machine)
 * @param hubCacheDir the hub cache folder on every executor host for a repo id, or null for the executor's
 *     environment ({@code HF_HUB_CACHE}, {@code HF_HOME}, else {@code ~/.cache/huggingface/hub})
 * @param hubEndpoint the hub endpoint (a mirror) for a repo id, or null for the environment's ({@code HF_ENDPOINT},
 *     else huggingface.co)
 */
public record BatchOptions(
        String model,
        String output,
        int concurrency,
        boolean failFast,
        int partitions,
        Map<String, String> backendOptions,
        String hubCacheDir,
        String hubEndpoint)
        implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * Checks every value.
     *
     * @throws InvalidRequestException naming the value, what was expected and what was found
     */
    public BatchOptions {
        if (model == null || model.isBlank()) {
            throw new InvalidRequestException(
                    "model must be a model folder or a repo id owner/name[@revision], found " + Values.quote(model));
        }
        if (output == null || output.isBlank()) {
            throw new InvalidRequestException("output must be a folder path or URI, found " + Values.quote(output));
        }
        if (concurrency < 1) {
            throw new InvalidRequestException("concurrency must be >= 1, found " + concurrency);
        }
        if (partitions < 0) {
            throw new InvalidRequestException("partitions must be >= 0 (0 = automatic), found " + partitions);
        }
        backendOptions = Map.copyOf(Objects.requireNonNull(backendOptions, "backendOptions"));
        if (hubEndpoint != null) {
            try {
                URI uri = new URI(hubEndpoint);
                if (uri.getScheme() == null || uri.getHost() == null) {
                    throw new URISyntaxException(hubEndpoint, "no scheme or host");
                }
            } catch (URISyntaxException e) {
                throw new InvalidRequestException(
                        "hubEndpoint must be an http(s) URL, found " + Values.quote(hubEndpoint));
            }
        }
    }

    /**
     * @param model the model folder, the same path on every executor, or a repo id {@code owner/name[@revision]}
     * @param output the output folder URI
     * @return a builder with concurrency 1, no fail-fast, automatic partitions and no backend option
     */
    public static Builder builder(String model, String output) {
        return new Builder(model, output);
    }

    /** Mutable builder of {@link BatchOptions}; {@link #build()} validates. Not thread-safe. */
    public static final class Builder {
        private final String model;
        private final String output;
        private int concurrency = 1;
        private boolean failFast;
        private int partitions;
        private final Map<String, String> backendOptions = new LinkedHashMap<>();
        private String hubCacheDir;
        private String hubEndpoint;

        private Builder(String model, String output) {
            this.model = model;
            this.output = output;
        }

        /** @param value generations at once per executor JVM (default 1) @return this */
        public Builder concurrency(int value) {
            this.concurrency = value;
            return this;
        }

        /** @param value whether a failed row fails the job (default false) @return this */
        public Builder failFast(boolean value) {
            this.failFast = value;
            return this;
        }

        /** @param value tasks to spread the rows over, 0 = automatic @return this */
        public Builder partitions(int value) {
            this.partitions = value;
            return this;
        }

        /**
         * @param key a backend option key of {@link OnnxOptions} ({@link #build()} checks it and its value)
         * @param value its value
         * @return this
         */
        public Builder backendOption(String key, String value) {
            backendOptions.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * @param options the ONNX backend's options, typed; they replace those set so far
         * @return this
         */
        public Builder onnxOptions(OnnxOptions options) {
            backendOptions.clear();
            backendOptions.putAll(options.asBackendOptions());
            return this;
        }

        /** @param dir the hub cache folder on every executor host (default: the executor's environment) @return this */
        public Builder hubCacheDir(String dir) {
            this.hubCacheDir = dir;
            return this;
        }

        /** @param url the hub endpoint, e.g. a mirror (default: the executor's environment) @return this */
        public Builder hubEndpoint(String url) {
            this.hubEndpoint = url;
            return this;
        }

        /**
         * @return the options
         * @throws InvalidRequestException naming a bad value, also a bad backend option: on the driver, before any
         *     executor builds a pipeline with it
         */
        public BatchOptions build() {
            OnnxOptions.parse(backendOptions);
            return new BatchOptions(
                    model, output, concurrency, failFast, partitions, backendOptions, hubCacheDir, hubEndpoint);
        }
    }
}
