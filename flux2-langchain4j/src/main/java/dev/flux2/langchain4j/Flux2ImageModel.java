package dev.flux2.langchain4j;

import dev.flux2.Flux2Pipeline;
import dev.flux2.ImageFiles;
import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.hub.HubModelResolver;
import dev.flux2.hub.HubOptions;
import dev.flux2.io.EncodedImages;
import dev.flux2.io.OpenAiMask;
import dev.flux2.io.PngFiles;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.model.image.ImageModel;
import dev.langchain4j.model.output.Response;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * FLUX.2 [klein] as a LangChain4j {@link ImageModel}, in process: {@link #generate(String)} and
 * {@link #generate(String, int)} run text-to-image, {@link #edit(Image, String)} passes the image as a FLUX.2
 * reference image (multi-reference editing). Images come back as base64 PNG ({@code image/png}) with the generation
 * metadata as PNG text entries, as {@code flux2 generate} writes them; {@link Response#metadata()} holds {@code seed}
 * (the first image's), {@code seeds}, {@code steps}, {@code width}, {@code height} and {@code total_ms}.
 *
 * <pre>{@code
 * ImageModel model = Flux2ImageModel.builder().model("DIR or owner/name").width(512).height(512).steps(4).seed(42L).build();
 * Response<Image> image = model.generate("a red fox in the snow");
 * }</pre>
 *
 * <p>With a fixed seed, image {@code k} of {@code generate(prompt, n)} uses {@code seed + k}, as the CLI's
 * {@code --num-images} does. Errors are LangChain4j exceptions (invalid input: {@code InvalidRequestException}; a
 * model that cannot be loaded: {@code ModelNotFoundException}; other failures: {@code NonRetriableException}) with
 * the Flux2 exception as the cause. Thread-safe (the pipeline is); {@link #close()} closes the pipeline only when this
 * model opened it, not one passed to {@link Builder#pipeline}.
 */
public final class Flux2ImageModel implements ImageModel, AutoCloseable {
    private final Flux2Pipeline pipeline;
    private final boolean ownsPipeline;
    private final Consumer<GenerationRequest.Builder> defaults;
    private final ImageSource images;

    private Flux2ImageModel(
            Flux2Pipeline pipeline,
            boolean ownsPipeline,
            Consumer<GenerationRequest.Builder> defaults,
            ImageSource images) {
        this.pipeline = pipeline;
        this.ownsPipeline = ownsPipeline;
        this.defaults = defaults;
        this.images = images;
    }

    /** @return a builder; set {@link Builder#model(String)}, {@link Builder#model(Path)} or {@link Builder#pipeline} */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Response<Image> generate(String prompt) {
        return single(run(request(prompt)));
    }

    @Override
    public Response<List<Image>> generate(String prompt, int n) {
        GenerationRequest.Builder request = request(prompt).numImages(n);
        GenerationResult result = run(request);
        List<Image> out = new ArrayList<>(result.images().size());
        result.images().forEach(image -> out.add(toImage(image)));
        return Response.from(out, null, null, metadata(result));
    }

    /**
     * Edits with the image as a reference image: the model sees it (its VAE latents join every denoising step) and
     * follows the prompt; the output has the configured size (default: the model's), not the image's.
     */
    @Override
    public Response<Image> edit(Image image, String prompt) {
        try (EncodedImages.Staged staged = stage(image, "image")) {
            return single(run(request(prompt)
                    .addReferenceImage(
                            read(staged, "reference image 0"), staged.path().toString())));
        }
    }

    /**
     * Inpaints: repaints the image where the mask marks it and keeps it elsewhere. The mask follows OpenAI's
     * convention (LangChain4j's OpenAI model passes such masks): fully transparent pixels mark the area to edit; a
     * mask without alpha is used as is (white repaints, diffusers' convention). It must have the image's size.
     */
    @Override
    public Response<Image> edit(Image image, Image mask, String prompt) {
        try (EncodedImages.Staged staged = stage(image, "image");
                EncodedImages.Staged stagedMask = stage(mask, "mask")) {
            GenerationRequest built;
            try {
                built = request(prompt)
                        .initImage(read(staged, "init image"))
                        .mask(read(stagedMask, "mask"))
                        .build();
            } catch (Flux2Exception e) {
                throw ErrorMapping.map(e);
            }
            java.awt.image.BufferedImage m = built.mask().orElseThrow();
            java.awt.image.BufferedImage init = built.initImage().orElseThrow();
            if (m.getWidth() != init.getWidth() || m.getHeight() != init.getHeight()) {
                throw ErrorMapping.map(new InvalidRequestException("the mask must have the size of the image: the"
                        + " image is " + init.getWidth() + "x" + init.getHeight() + ", the mask is " + m.getWidth()
                        + "x" + m.getHeight()));
            }
            return single(run(built.toBuilder().mask(OpenAiMask.toFlux(m))));
        }
    }

    /** Closes the pipeline if this model opened it (built with a model, not a shared pipeline). Idempotent. */
    @Override
    public void close() {
        if (ownsPipeline) {
            pipeline.close();
        }
    }

    private GenerationRequest.Builder request(String prompt) {
        if (prompt == null) {
            throw ErrorMapping.map(new InvalidRequestException("prompt must not be null"));
        }
        GenerationRequest.Builder b = GenerationRequest.builder(prompt).limits(pipeline.limits());
        defaults.accept(b);
        return b;
    }

    /** Reads a staged image within the pipeline's limits; a refusal is mapped as every SDK error is. */
    private java.awt.image.BufferedImage read(EncodedImages.Staged staged, String what) {
        try {
            return ImageFiles.read(staged.path(), what, pipeline.limits());
        } catch (Flux2Exception e) {
            throw ErrorMapping.map(e);
        }
    }

    private EncodedImages.Staged stage(Image image, String what) {
        try {
            return images.stage(image, what);
        } catch (Flux2Exception e) {
            throw ErrorMapping.map(e);
        }
    }

    private GenerationResult run(GenerationRequest.Builder request) {
        try {
            return pipeline.generate(request.build());
        } catch (Flux2Exception e) {
            throw ErrorMapping.map(e);
        }
    }

    private static Response<Image> single(GenerationResult result) {
        return Response.from(toImage(result.first()), null, null, metadata(result));
    }

    private static Image toImage(GeneratedImage image) {
        return Image.builder()
                .base64Data(Base64.getEncoder().encodeToString(PngFiles.encode(image)))
                .mimeType("image/png")
                .build();
    }

    private static Map<String, Object> metadata(GenerationResult result) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<Long> seeds = new ArrayList<>();
        result.images().forEach(i -> i.metadata().seed().ifPresent(seeds::add));
        if (!seeds.isEmpty()) {
            m.put("seed", seeds.get(0));
            m.put("seeds", List.copyOf(seeds));
        }
        m.put("steps", result.first().metadata().steps());
        m.put("width", result.first().metadata().width());
        m.put("height", result.first().metadata().height());
        m.put("total_ms", result.timings().total().toMillis());
        return m;
    }

    /**
     * Builder of {@link Flux2ImageModel}, in LangChain4j's style. Setters only record values; {@link #build()}
     * validates them and opens the model (or takes the shared pipeline). Not thread-safe.
     */
    public static final class Builder {
        private String modelReference;
        private Path modelDirectory;
        private Flux2Pipeline pipeline;
        private Integer width;
        private Integer height;
        private Integer steps;
        private Long seed;
        private Double guidance;
        private String negativePrompt;
        private MemoryPolicy memoryPolicy;
        private HubOptions hubOptions;
        private GenerationLimits limits;
        private String backend;
        private final Map<String, String> backendOptions = new LinkedHashMap<>();
        private boolean allowRemoteImages;
        private final List<Path> localImageFolders = new ArrayList<>();

        private Builder() {}

        /** @param reference a bundle folder or a repo id ({@code owner/name}, resolved through the hub cache) @return this */
        public Builder model(String reference) {
            this.modelReference = reference;
            this.modelDirectory = null;
            return this;
        }

        /** @param directory a bundle folder @return this */
        public Builder model(Path directory) {
            this.modelDirectory = directory;
            this.modelReference = null;
            return this;
        }

        /**
         * Shares an open pipeline instead of opening a model; {@link Flux2ImageModel#close()} leaves it open. The
         * model, hub, memory, limits and backend settings then belong to that pipeline and must not be set here.
         *
         * @param pipeline the pipeline
         * @return this
         */
        public Builder pipeline(Flux2Pipeline pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        /** @param width output width, a multiple of 16 (default: the model's) @return this */
        public Builder width(Integer width) {
            this.width = width;
            return this;
        }

        /** @param height output height, a multiple of 16 (default: the model's) @return this */
        public Builder height(Integer height) {
            this.height = height;
            return this;
        }

        /** @param steps denoising steps (default: the model's) @return this */
        public Builder steps(Integer steps) {
            this.steps = steps;
            return this;
        }

        /** @param seed the seed; image k of a call uses seed + k (default: random per call) @return this */
        public Builder seed(Long seed) {
            this.seed = seed;
            return this;
        }

        /** @param guidance classifier-free guidance scale, used by base models only @return this */
        public Builder guidance(Double guidance) {
            this.guidance = guidance;
            return this;
        }

        /** @param negativePrompt the negative prompt, used under classifier-free guidance @return this */
        public Builder negativePrompt(String negativePrompt) {
            this.negativePrompt = negativePrompt;
            return this;
        }

        /** @param policy the memory policy (default {@link MemoryPolicy#AUTO}) @return this */
        public Builder memoryPolicy(MemoryPolicy policy) {
            this.memoryPolicy = policy;
            return this;
        }

        /** @param options hub cache folder, offline mode, token @return this */
        public Builder hubOptions(HubOptions options) {
            this.hubOptions = options;
            return this;
        }

        /** @param limits request and input-image limits (default {@link GenerationLimits#defaults()}) @return this */
        public Builder limits(GenerationLimits limits) {
            this.limits = limits;
            return this;
        }

        /** @param name the backend's name (default: any on the class path) @return this */
        public Builder backend(String name) {
            this.backend = name;
            return this;
        }

        /**
         * @param key a backend option ({@code threads}, {@code providers}, {@code cpu_tuned}, …: see
         *     {@code Flux2Pipeline.Builder.backendOption})
         * @param value its value
         * @return this
         */
        public Builder backendOption(String key, String value) {
            this.backendOptions.put(key, value);
            return this;
        }

        /**
         * @param allow whether {@code http:}/{@code https:} image URLs given to {@code edit} are fetched (default
         *     false: only base64 data, {@code data:} URLs and {@code file:} URLs in {@link #localImageFolders} are
         *     read); a fetch must end within 30 s and 256 MiB
         * @return this
         */
        public Builder allowRemoteImages(boolean allow) {
            this.allowRemoteImages = allow;
            return this;
        }

        /**
         * The folders whose files {@code file:} image URLs given to {@code edit} may name (default none: every
         * {@code file:} URL is refused, so that whoever supplies the image cannot read the application's files).
         * A file is inside a folder when its real path (links resolved) is; each call adds to the list.
         *
         * @param folders the folders
         * @return this
         */
        public Builder localImageFolders(Path... folders) {
            for (Path folder : folders) {
                this.localImageFolders.add(Objects.requireNonNull(folder, "folder"));
            }
            return this;
        }

        /**
         * @return the model, its pipeline open
         * @throws dev.langchain4j.exception.InvalidRequestException for settings that do not fit together or are out of range
         * @throws dev.langchain4j.exception.ModelNotFoundException when the model cannot be found or loaded
         */
        public Flux2ImageModel build() {
            try {
                return doBuild();
            } catch (Flux2Exception e) {
                throw ErrorMapping.map(e);
            }
        }

        private Flux2ImageModel doBuild() {
            // The request settings are checked now, against a request like every call's, not at the first call.
            Integer w = width;
            Integer h = height;
            Integer s = steps;
            Long sd = seed;
            Double g = guidance;
            String neg = negativePrompt;
            Consumer<GenerationRequest.Builder> defaults = b -> {
                if (w != null) {
                    b.width(w);
                }
                if (h != null) {
                    b.height(h);
                }
                if (s != null) {
                    b.steps(s);
                }
                if (sd != null) {
                    b.seed(sd);
                }
                if (g != null) {
                    b.guidance(g);
                }
                if (neg != null) {
                    b.negativePrompt(neg);
                }
            };
            GenerationRequest.Builder probe = GenerationRequest.builder("");
            defaults.accept(probe);
            probe.build();
            boolean modelSet = modelReference != null || modelDirectory != null;
            if (pipeline != null) {
                if (modelSet
                        || memoryPolicy != null
                        || hubOptions != null
                        || limits != null
                        || backend != null
                        || !backendOptions.isEmpty()) {
                    throw new InvalidRequestException("a shared pipeline(...) was given together with model, hub,"
                            + " memory, limits or backend settings; those belong to the pipeline, set them there");
                }
                return new Flux2ImageModel(
                        pipeline, false, defaults, new ImageSource(allowRemoteImages, localImageFolders));
            }
            if (!modelSet) {
                throw new InvalidRequestException(
                        "set the model with model(\"DIR or owner/name\"), model(Path) or pipeline(...), got none");
            }
            Flux2Pipeline.Builder pb = Flux2Pipeline.builder();
            if (modelDirectory != null) {
                pb.model(modelDirectory);
            } else {
                pb.model(Objects.requireNonNull(modelReference));
            }
            if (memoryPolicy != null) {
                pb.memoryPolicy(memoryPolicy);
            }
            if (hubOptions != null) {
                pb.modelResolver(new HubModelResolver(hubOptions));
            }
            if (limits != null) {
                pb.limits(limits);
            }
            if (backend != null) {
                pb.backend(backend);
            }
            backendOptions.forEach(pb::backendOption);
            return new Flux2ImageModel(
                    pb.build(), true, defaults, new ImageSource(allowRemoteImages, localImageFolders));
        }
    }
}
