package dev.flux2.springai;

import dev.flux2.Flux2Pipeline;
import dev.flux2.ImageFiles;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.io.EncodedImages;
import dev.flux2.io.PngFiles;
import io.micrometer.observation.ObservationRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.springframework.ai.content.Media;
import org.springframework.ai.image.Image;
import org.springframework.ai.image.ImageGeneration;
import org.springframework.ai.image.ImageMessage;
import org.springframework.ai.image.ImageModel;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.ai.image.ImageResponse;
import org.springframework.ai.image.ImageResponseMetadata;
import org.springframework.ai.image.observation.DefaultImageModelObservationConvention;
import org.springframework.ai.image.observation.ImageModelObservationContext;
import org.springframework.ai.image.observation.ImageModelObservationConvention;
import org.springframework.ai.image.observation.ImageModelObservationDocumentation;

/**
 * FLUX.2 [klein] as a Spring AI {@link ImageModel}, in process. {@link #call(ImagePrompt)} runs one
 * {@code Flux2Pipeline.generate}: the prompt is the messages' texts joined by a space (weights are ignored), the
 * images attached to the messages ({@link ImageMessage#getMedia()}) are FLUX.2 reference images in order, or, when
 * the options set a {@code strength}, the first is the img2img init image and the rest are references. The options
 * are the call's laid over the model's defaults ({@link Flux2ImageOptions#merge}); with a seed, image {@code k} of
 * {@code n} uses {@code seed + k}, as the CLI's {@code --num-images} does. Each {@link ImageGeneration} holds the PNG
 * base64-encoded ({@link Image#getB64Json()}, no URL) and {@link Flux2ImageGenerationMetadata}.
 *
 * <p>Every call is a Micrometer observation under Spring AI's image-model convention
 * ({@link DefaultImageModelObservationConvention}, {@code gen_ai.client.operation}, provider {@value #PROVIDER}),
 * replaceable with {@link #setObservationConvention}. Errors are the Flux2 exceptions (invalid input:
 * {@code InvalidRequestException} and its {@code InvalidImageException}). Thread-safe; the pipeline is shared, not
 * owned: whoever opened it closes it (the auto-configuration closes its bean with the context).
 */
public final class Flux2ImageModel implements ImageModel {
    /** The provider name in observations and in {@code spring.ai.model.image}. */
    public static final String PROVIDER = "flux2";

    private static final ImageModelObservationConvention DEFAULT_CONVENTION =
            new DefaultImageModelObservationConvention();

    private final Flux2Pipeline pipeline;
    private final Flux2ImageOptions defaults;
    private final ObservationRegistry observationRegistry;
    private final MediaSource media;
    private volatile ImageModelObservationConvention observationConvention = DEFAULT_CONVENTION;

    private Flux2ImageModel(Builder b) {
        this.pipeline = b.pipeline;
        this.defaults = b.defaultOptions;
        this.observationRegistry = b.observationRegistry;
        this.media = new MediaSource(b.allowRemoteImages, b.localImageFolders);
    }

    /** @return a builder; {@link Builder#pipeline} is required */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the defaults every call's options are laid over */
    public Flux2ImageOptions getDefaultOptions() {
        return defaults;
    }

    /** @param convention the observation convention to use instead of Spring AI's default */
    public void setObservationConvention(ImageModelObservationConvention convention) {
        this.observationConvention = Objects.requireNonNull(convention, "convention");
    }

    @Override
    public ImageResponse call(ImagePrompt prompt) {
        Objects.requireNonNull(prompt, "prompt");
        Flux2ImageOptions options = defaults.merge(prompt.getOptions());
        // The observation sees the options the call runs with, as Spring AI's own models report them.
        ImagePrompt merged = new ImagePrompt(prompt.getInstructions(), options);
        ImageModelObservationContext context = ImageModelObservationContext.builder()
                .imagePrompt(merged)
                .provider(PROVIDER)
                .build();
        return ImageModelObservationDocumentation.IMAGE_MODEL_OPERATION
                .observation(observationConvention, DEFAULT_CONVENTION, () -> context, observationRegistry)
                .observe(() -> {
                    ImageResponse response = generate(merged.getInstructions(), options);
                    context.setResponse(response);
                    return response;
                });
    }

    private ImageResponse generate(List<ImageMessage> messages, Flux2ImageOptions options) {
        if (messages == null || messages.isEmpty()) {
            throw new InvalidRequestException("the image prompt has no message; expected at least one");
        }
        check(options);
        String text = messages.stream()
                .map(ImageMessage::getText)
                .filter(t -> t != null && !t.isBlank())
                .collect(Collectors.joining(" "));
        List<Media> images = new ArrayList<>();
        messages.forEach(m -> images.addAll(m.getMedia()));
        GenerationRequest.Builder request = request(text, options);
        List<EncodedImages.Staged> staged = new ArrayList<>();
        try {
            int first = 0;
            if (options.getStrength() != null) {
                if (images.isEmpty()) {
                    throw new InvalidRequestException("strength " + options.getStrength()
                            + " was given without an init image (attach one to the ImageMessage)");
                }
                EncodedImages.Staged init = media.stage(images.get(0), "init image");
                staged.add(init);
                request.initImage(ImageFiles.read(init.path(), "init image", pipeline.limits()))
                        .strength(options.getStrength());
                first = 1;
            }
            for (int i = first; i < images.size(); i++) {
                EncodedImages.Staged ref = media.stage(images.get(i), "reference image " + (i - first));
                staged.add(ref);
                request.addReferenceImage(
                        ImageFiles.read(ref.path(), "reference image " + (i - first), pipeline.limits()),
                        ref.path().toString());
            }
            long start = System.nanoTime();
            GenerationRequest built = request.build();
            GenerationResult result = pipeline.generate(built);
            return response(result, java.time.Duration.ofNanos(System.nanoTime() - start));
        } finally {
            staged.forEach(EncodedImages.Staged::close);
        }
    }

    private GenerationRequest.Builder request(String text, Flux2ImageOptions options) {
        GenerationRequest.Builder request = GenerationRequest.builder(text).limits(pipeline.limits());
        if (options.getWidth() != null) {
            request.width(options.getWidth());
        }
        if (options.getHeight() != null) {
            request.height(options.getHeight());
        }
        if (options.getSteps() != null) {
            request.steps(options.getSteps());
        }
        if (options.getSeed() != null) {
            request.seed(options.getSeed());
        }
        if (options.getGuidance() != null) {
            request.guidance(options.getGuidance());
        }
        if (options.getNegativePrompt() != null) {
            request.negativePrompt(options.getNegativePrompt());
        }
        if (options.getN() != null) {
            request.numImages(options.getN());
        }
        return request;
    }

    private void check(Flux2ImageOptions options) {
        if (options.getResponseFormat() != null && !Flux2ImageOptions.B64_JSON.equals(options.getResponseFormat())) {
            throw new InvalidRequestException("image option responseFormat must be '" + Flux2ImageOptions.B64_JSON
                    + "' (the PNG inline; an in-process model serves no URLs), got '" + options.getResponseFormat()
                    + "'");
        }
        String served = defaults.getModel();
        if (options.getModel() != null && served != null && !served.equals(options.getModel())) {
            throw new InvalidRequestException("image option model '" + options.getModel()
                    + "' is not the model this Flux2ImageModel serves, '" + served
                    + "' (one pipeline per model: define another Flux2ImageModel bean for another model)");
        }
    }

    private static ImageResponse response(GenerationResult result, java.time.Duration time) {
        List<ImageGeneration> generations = new ArrayList<>(result.images().size());
        for (GeneratedImage image : result.images()) {
            var m = image.metadata();
            Flux2ImageGenerationMetadata metadata = new Flux2ImageGenerationMetadata(
                    m.seed().isPresent() ? m.seed().getAsLong() : null, m.steps(), m.width(), m.height(), time);
            generations.add(new ImageGeneration(
                    new Image(null, Base64.getEncoder().encodeToString(PngFiles.encode(image))), metadata));
        }
        return new ImageResponse(generations, new ImageResponseMetadata());
    }

    /** Builder of {@link Flux2ImageModel}. Setters only record values; {@link #build()} validates them. */
    public static final class Builder {
        private Flux2Pipeline pipeline;
        private Flux2ImageOptions defaultOptions = Flux2ImageOptions.builder().build();
        private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
        private boolean allowRemoteImages;
        private List<Path> localImageFolders = List.of();

        private Builder() {}

        /** @param pipeline the open pipeline to generate with (shared, not closed by the model) @return this */
        public Builder pipeline(Flux2Pipeline pipeline) {
            this.pipeline = pipeline;
            return this;
        }

        /**
         * @param options the defaults of every call; their {@code model}, when set, names the model the pipeline
         *     serves, and a call naming another is refused
         * @return this
         */
        public Builder defaultOptions(Flux2ImageOptions options) {
            this.defaultOptions = options;
            return this;
        }

        /** @param registry where the observations go (default: none) @return this */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observationRegistry = registry;
            return this;
        }

        /**
         * @param allow whether {@code http:}/{@code https:} media URLs are fetched (default false); a fetch must end
         *     within 30 s and 256 MiB
         * @return this
         */
        public Builder allowRemoteImages(boolean allow) {
            this.allowRemoteImages = allow;
            return this;
        }

        /**
         * @param folders the folders whose files {@code file:} media URLs may name (default none: every {@code file:}
         *     URL is refused, so that whoever supplies the media cannot read the application's files); a file is
         *     inside a folder when its real path (links resolved) is
         * @return this
         */
        public Builder localImageFolders(List<Path> folders) {
            this.localImageFolders = List.copyOf(folders);
            return this;
        }

        /**
         * @return the model
         * @throws InvalidRequestException without a pipeline, or with default options that do not make a valid
         *     request or exceed the pipeline's limits
         */
        public Flux2ImageModel build() {
            if (pipeline == null) {
                throw new InvalidRequestException("Flux2ImageModel needs a pipeline, got none");
            }
            if (defaultOptions == null) {
                throw new InvalidRequestException("defaultOptions must not be null");
            }
            if (observationRegistry == null) {
                throw new InvalidRequestException(
                        "observationRegistry must not be null (use ObservationRegistry.NOOP)");
            }
            Flux2ImageModel model = new Flux2ImageModel(this);
            model.check(defaultOptions);
            // The defaults are checked now, as a request and against the limits (a width of 1000 fails the
            // startup, not the first call); a strength needs an init image, so it is left to the calls.
            GenerationRequest probe = model.request("", defaultOptions).build();
            pipeline.limits().checkRequest(probe);
            return model;
        }
    }
}
