package dev.flux2.springai;

import dev.flux2.api.InvalidRequestException;
import java.util.Objects;
import org.springframework.ai.image.ImageOptions;

/**
 * The options of a FLUX.2 image call: Spring AI's portable ones ({@code n}, {@code model}, {@code width},
 * {@code height}, {@code responseFormat}) and FLUX.2's ({@code seed}, {@code steps}, {@code guidance},
 * {@code strength}, {@code negativePrompt}). Unset values are {@code null}; {@link #merge} lays a call's options over
 * the model's defaults, field by field, as Spring AI's own models do. Immutable.
 */
public final class Flux2ImageOptions implements ImageOptions {
    /** The one response format: the PNG inline, base64-encoded ({@code Image.getB64Json()}). */
    public static final String B64_JSON = "b64_json";

    private final Integer n;
    private final String model;
    private final Integer width;
    private final Integer height;
    private final String responseFormat;
    private final Long seed;
    private final Integer steps;
    private final Double guidance;
    private final Double strength;
    private final String negativePrompt;

    private Flux2ImageOptions(Builder b) {
        this.n = b.n;
        this.model = b.model;
        this.width = b.width;
        this.height = b.height;
        this.responseFormat = b.responseFormat;
        this.seed = b.seed;
        this.steps = b.steps;
        this.guidance = b.guidance;
        this.strength = b.strength;
        this.negativePrompt = b.negativePrompt;
    }

    /** @return a builder with nothing set */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these options */
    public Builder toBuilder() {
        return new Builder()
                .n(n)
                .model(model)
                .width(width)
                .height(height)
                .responseFormat(responseFormat)
                .seed(seed)
                .steps(steps)
                .guidance(guidance)
                .strength(strength)
                .negativePrompt(negativePrompt);
    }

    /**
     * Lays a call's options over these defaults: every value the call sets wins; FLUX.2's own values come only from a
     * {@code Flux2ImageOptions}. A style is refused (FLUX.2 has none).
     *
     * @param call the call's options, any {@link ImageOptions}, or null
     * @return the merged options
     * @throws InvalidRequestException when the call sets a style
     */
    public Flux2ImageOptions merge(ImageOptions call) {
        if (call == null) {
            return this;
        }
        if (call.getStyle() != null) {
            throw new InvalidRequestException(
                    "image option style is not supported by FLUX.2, got '" + call.getStyle() + "'");
        }
        Builder b = toBuilder();
        if (call.getN() != null) {
            b.n(call.getN());
        }
        if (call.getModel() != null) {
            b.model(call.getModel());
        }
        if (call.getWidth() != null) {
            b.width(call.getWidth());
        }
        if (call.getHeight() != null) {
            b.height(call.getHeight());
        }
        if (call.getResponseFormat() != null) {
            b.responseFormat(call.getResponseFormat());
        }
        if (call instanceof Flux2ImageOptions f) {
            b.seed(f.seed != null ? f.seed : seed)
                    .steps(f.steps != null ? f.steps : steps)
                    .guidance(f.guidance != null ? f.guidance : guidance)
                    .strength(f.strength != null ? f.strength : strength)
                    .negativePrompt(f.negativePrompt != null ? f.negativePrompt : negativePrompt);
        }
        return b.build();
    }

    @Override
    public Integer getN() {
        return n;
    }

    @Override
    public String getModel() {
        return model;
    }

    @Override
    public Integer getWidth() {
        return width;
    }

    @Override
    public Integer getHeight() {
        return height;
    }

    @Override
    public String getResponseFormat() {
        return responseFormat;
    }

    /** @return null: FLUX.2 has no style option */
    @Override
    public String getStyle() {
        return null;
    }

    /** @return the seed; image k of a call uses seed + k (null: random) */
    public Long getSeed() {
        return seed;
    }

    /** @return the denoising steps (null: the model's) */
    public Integer getSteps() {
        return steps;
    }

    /** @return the classifier-free guidance scale, used by base models only (null: the model's) */
    public Double getGuidance() {
        return guidance;
    }

    /** @return the img2img strength in (0, 1]; set, the first image of the prompt is the init image */
    public Double getStrength() {
        return strength;
    }

    /** @return the negative prompt, used under classifier-free guidance (null: none) */
    public String getNegativePrompt() {
        return negativePrompt;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Flux2ImageOptions that
                && Objects.equals(n, that.n)
                && Objects.equals(model, that.model)
                && Objects.equals(width, that.width)
                && Objects.equals(height, that.height)
                && Objects.equals(responseFormat, that.responseFormat)
                && Objects.equals(seed, that.seed)
                && Objects.equals(steps, that.steps)
                && Objects.equals(guidance, that.guidance)
                && Objects.equals(strength, that.strength)
                && Objects.equals(negativePrompt, that.negativePrompt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(n, model, width, height, responseFormat, seed, steps, guidance, strength, negativePrompt);
    }

    @Override
    public String toString() {
        return "Flux2ImageOptions{n=" + n + ", model=" + model + ", width=" + width + ", height=" + height
                + ", responseFormat=" + responseFormat + ", seed=" + seed + ", steps=" + steps + ", guidance="
                + guidance + ", strength=" + strength + ", negativePrompt=" + negativePrompt + "}";
    }

    /** Builder of {@link Flux2ImageOptions}; null leaves a value unset. Not thread-safe. */
    public static final class Builder {
        private Integer n;
        private String model;
        private Integer width;
        private Integer height;
        private String responseFormat;
        private Long seed;
        private Integer steps;
        private Double guidance;
        private Double strength;
        private String negativePrompt;

        private Builder() {}

        /** @param n images per call @return this */
        public Builder n(Integer n) {
            this.n = n;
            return this;
        }

        /** @param model the model's name, checked against the model the pipeline serves @return this */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** @param width pixels, a multiple of 16 @return this */
        public Builder width(Integer width) {
            this.width = width;
            return this;
        }

        /** @param height pixels, a multiple of 16 @return this */
        public Builder height(Integer height) {
            this.height = height;
            return this;
        }

        /** @param responseFormat {@value Flux2ImageOptions#B64_JSON}, the only one @return this */
        public Builder responseFormat(String responseFormat) {
            this.responseFormat = responseFormat;
            return this;
        }

        /** @param seed the seed; image k uses seed + k @return this */
        public Builder seed(Long seed) {
            this.seed = seed;
            return this;
        }

        /** @param steps denoising steps @return this */
        public Builder steps(Integer steps) {
            this.steps = steps;
            return this;
        }

        /** @param guidance classifier-free guidance scale @return this */
        public Builder guidance(Double guidance) {
            this.guidance = guidance;
            return this;
        }

        /** @param strength img2img strength in (0, 1] @return this */
        public Builder strength(Double strength) {
            this.strength = strength;
            return this;
        }

        /** @param negativePrompt the negative prompt @return this */
        public Builder negativePrompt(String negativePrompt) {
            this.negativePrompt = negativePrompt;
            return this;
        }

        /** @return the options (checked when a call uses them, against the model) */
        public Flux2ImageOptions build() {
            return new Flux2ImageOptions(this);
        }
    }
}
