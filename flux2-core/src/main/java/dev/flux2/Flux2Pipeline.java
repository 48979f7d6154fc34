package dev.flux2;

import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InferenceException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.pipeline.BackendLocator;
import dev.flux2.pipeline.GenerationEngine;
import dev.flux2.pipeline.ModelLocator;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Generates images with FLUX.2 [klein] from a model folder, or from a model name that an installed
 * {@link ModelResolver} resolves to a folder ({@link Builder#model(String)}; {@code flux2-hub}: a Hugging Face repo
 * id, fetched once into the shared hub cache).
 *
 * <pre>{@code
 * try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(Path.of("flux2-klein-4b")).build()) {
 *     BufferedImage image = pipeline.generate("a red fox in the snow").first().image();
 * }
 * }</pre>
 *
 * <p>The backend is found with {@link java.util.ServiceLoader}: put {@code flux2-onnx} on the classpath.
 * {@link Builder#build()} checks the whole bundle (files, sizes, graph signatures) before returning.
 *
 * <p>Thread-safe: {@code generate} may be called from several threads (the backend serialises its runtime calls
 * as it needs); {@link #close()} waits for running generations after cancelling them. Not reusable after close.
 */
public final class Flux2Pipeline implements AutoCloseable {
    private final GenerationEngine engine;

    private Flux2Pipeline(GenerationEngine engine) {
        this.engine = engine;
    }

    /** @return a builder with the defaults: {@link MemoryPolicy#AUTO}, any backend, no backend options */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Generates one image with the model's defaults (size, steps, guidance) and a random seed (reported in the
     * metadata).
     *
     * @param prompt the prompt, verbatim
     * @return the result
     */
    public GenerationResult generate(String prompt) {
        return generate(GenerationRequest.builder(prompt).build());
    }

    /**
     * Runs one request.
     *
     * @param request the request
     * @return the images and timings
     * @throws InvalidRequestException when the request does not fit the model (for example an init image on a
     *     bundle without VAE encoder, or explicit noise of the wrong size) or exceeds the {@link #limits()}
     * @throws InferenceException when a backend call fails, or a stage's output holds NaN or infinity (the
     *     message names the stage and step)
     * @throws PipelineClosedException after {@link #close()}
     */
    public GenerationResult generate(GenerationRequest request) {
        return generate(request, GenerationControls.none());
    }

    /**
     * Runs one request with a progress listener and a cancellation token: what the caller controls while it runs
     * stays out of the request, a plain value.
     *
     * @param request the request
     * @param controls the listener that receives this generation's events and the token that cancels it
     * @return the images and timings
     * @throws InvalidRequestException as {@link #generate(GenerationRequest)}
     * @throws InferenceException as {@link #generate(GenerationRequest)}
     * @throws GenerationCancelledException when the token was cancelled
     * @throws PipelineClosedException after {@link #close()}
     */
    public GenerationResult generate(GenerationRequest request, GenerationControls controls) {
        return engine.generate(
                Objects.requireNonNull(request, "request"), Objects.requireNonNull(controls, "controls"));
    }

    /**
     * @return the limits every request is checked against: those set with {@link Builder#limits} (default
     *     {@link GenerationLimits#defaults()}), raised where needed so the model's own defaults pass
     *     ({@link GenerationLimits#forModel})
     */
    public GenerationLimits limits() {
        return engine.limits();
    }

    /**
     * @return the model's identity and defaults
     * @throws PipelineClosedException after {@link #close()}
     */
    public ModelInfo modelInfo() {
        return engine.modelInfo();
    }

    /** Cancels running generations, waits for them, and releases every native resource. Idempotent. */
    @Override
    public void close() {
        engine.close();
    }

    /**
     * Builder of {@link Flux2Pipeline}. Setters only record values; {@link #build()} validates them, finds the
     * backend and opens the model. Not thread-safe.
     */
    public static final class Builder {
        private Path model;
        private String modelReference;
        private ModelResolver modelResolver;
        private MemoryPolicy memoryPolicy = MemoryPolicy.AUTO;
        private String backend;
        private GenerationLimits limits;
        private final Map<String, String> backendOptions = new LinkedHashMap<>();
        private final List<String> nullOptions = new ArrayList<>();
        private final Map<ModelRole, Path> components = new EnumMap<>(ModelRole.class);
        private final List<String> nullComponents = new ArrayList<>();

        private Builder() {}

        /**
         * @param directory the model folder (for ONNX: a bundle folder with {@code flux2-config.json}, or any folder of
         *     FLUX.2 [klein] ONNX graphs, whose parts are found by their signatures)
         * @return this
         */
        public Builder model(Path directory) {
            this.model = directory;
            this.modelReference = null;
            return this;
        }

        /**
         * Names the model: a string naming an existing folder is that folder; any other string is a model name,
         * resolved in {@link #build()} by the {@link #modelResolver(ModelResolver) model resolver}, by default the
         * first installed one ({@link java.util.ServiceLoader}) that accepts it. {@code flux2-hub} (which
         * {@code flux2-onnx} brings) installs one for Hugging Face repo ids, {@code owner/name} (branch
         * {@code main}) or {@code owner/name@revision} (a branch, tag or commit), looked up in the shared hub cache
         * and fetched and verified when missing; its {@code ModelNames.DEFAULT_MODEL} names the pinned default
         * bundle. Without a resolver a name fails in {@code build()} with a {@link ModelLoadException} naming the
         * module to add.
         *
         * @param reference a folder or a model name
         * @return this
         */
        public Builder model(String reference) {
            this.modelReference = reference;
            this.model = null;
            return this;
        }

        /**
         * @param resolver resolves a {@link #model(String) model name} instead of the installed resolvers (for
         *     example {@code new HubModelResolver(hubOptions)} with its own cache folder, offline mode or download
         *     listener); null: the installed ones
         * @return this
         */
        public Builder modelResolver(ModelResolver resolver) {
            this.modelResolver = resolver;
            return this;
        }

        /** @param policy when sessions stay open (default {@link MemoryPolicy#AUTO}) @return this */
        public Builder memoryPolicy(MemoryPolicy policy) {
            this.memoryPolicy = policy;
            return this;
        }

        /**
         * @param limits the largest work a request may ask for (default {@link GenerationLimits#defaults()}); every
         *     request is checked against them before any backend call, and a refusal is an
         *     {@link InvalidRequestException} naming the limit and the value
         * @return this
         */
        public Builder limits(GenerationLimits limits) {
            this.limits = limits;
            return this;
        }

        /**
         * @param name use only the backend with this name, case-insensitive (default, or null: the first backend
         *     that recognises the folder)
         * @return this
         */
        public Builder backend(String name) {
            this.backend = name;
            return this;
        }

        /**
         * Sets an option of the backend (threads, execution providers, …), replacing an earlier value of the same
         * key. The keys and values a backend accepts are its own: see the backend's documentation (the ONNX
         * backend's keys are listed in docs/embedding.md §6). The backend parses every option in {@code build()} and
         * rejects an unknown key or a bad value.
         *
         * @param key option key
         * @param value option value
         * @return this
         */
        public Builder backendOption(String key, String value) {
            if (key == null || value == null) {
                nullOptions.add(key + "=" + value);
            } else {
                backendOptions.put(key, value);
            }
            return this;
        }

        /**
         * Takes one part of the model from another place than the model folder, replacing the folder's own (for
         * example the transformer of another export beside a bundle's text encoder and VAE). The source is a folder,
         * in which the backend finds the part as it would in a model folder, or a file (for the ONNX backend a graph
         * file, or the tokenizer's {@code tokenizer.json}). The composed model is checked like a whole one in
         * {@link #build()}: every part's signature, and that the parts fit each other (the text encoder's context
         * width is what the denoiser takes, and so on). Setting a role again replaces its source.
         *
         * @param role the part
         * @param source a folder or a file
         * @return this
         */
        public Builder component(ModelRole role, Path source) {
            if (role == null || source == null) {
                nullComponents.add(role + "=" + source);
            } else {
                components.put(role, source);
            }
            return this;
        }

        /**
         * Validates the settings, finds a backend and opens the model; the backend checks its options and every
         * file and graph signature before this returns.
         *
         * @return the pipeline; the caller closes it
         * @throws InvalidRequestException for a missing model folder or memory policy, a null component, or a backend
         *     option that is null, unknown to the backend or has a bad value
         * @throws ModelLoadException when the model cannot be used
         */
        public Flux2Pipeline build() {
            if (model == null && modelReference == null) {
                throw new InvalidRequestException("the model must be set with model(Path) or model(String), got none");
            }
            if (memoryPolicy == null) {
                throw new InvalidRequestException("memoryPolicy must be SEQUENTIAL, RESIDENT or AUTO, got null");
            }
            if (!nullOptions.isEmpty()) {
                throw new InvalidRequestException(
                        "backendOption key and value must not be null, got " + String.join(", ", nullOptions));
            }
            if (!nullComponents.isEmpty()) {
                throw new InvalidRequestException(
                        "component role and source must not be null, got " + String.join(", ", nullComponents));
            }
            // Resolution (cache lookup, download, verification) comes after every cheap check above.
            Path folder = model != null ? model : ModelLocator.resolve(modelReference, modelResolver);
            BackendConfig config = new BackendConfig(folder, memoryPolicy, backendOptions, components);
            GenerationLimits effective = limits != null ? limits : GenerationLimits.defaults();
            return new Flux2Pipeline(new GenerationEngine(BackendLocator.open(config, backend), effective));
        }
    }
}
