package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One generation request: an immutable value built fluently and validated in {@link Builder#build()}, which reads
 * no file and asks nothing of the machine. What the caller controls while a generation runs (progress listener,
 * cancellation token) is passed with the call ({@link GenerationControls}); image files are read beforehand by the
 * caller ({@code dev.flux2.ImageFiles.read}), so that reading one is a step of its own with its own errors.
 *
 * <pre>{@code
 * GenerationRequest request = GenerationRequest.builder("a red fox in the snow")
 *         .size(512, 512)
 *         .seed(42)
 *         .build();
 * }</pre>
 *
 * <p>Unset values take the model's defaults ({@link ModelInfo}): steps and guidance from the bundle config, the size
 * from the init image, else the first reference image, else the bundle's default size. Without a seed and without
 * explicit noise a random seed is drawn ({@link Seeds#random()}: in [0, 2³²)) and reported in the result's metadata. With {@code numImages > 1} image
 * {@code k} uses seed {@code seed + k}.
 *
 * <p>Thread-safe (immutable), with one caveat: images are kept by reference, not copied (a 1024² image is 4 MB).
 * The SDK never mutates them; the caller must not either while a request holding them may still run.
 * {@link #equals} compares every value; images by identity (the same {@code BufferedImage} objects), since
 * {@code BufferedImage} has no value equality.
 */
public final class GenerationRequest {
    /**
     * The smallest img2img strength accepted. Below it {@code n − n·strength} can round to {@code n} in double, which
     * leaves no denoising step; from it up, every step count keeps at least one step.
     */
    public static final double MIN_STRENGTH = 1e-6;

    private final String prompt;
    private final String negativePrompt;
    private final Integer width;
    private final Integer height;
    private final Integer steps;
    private final float[] customSigmas;
    private final Long seed;
    private final float[] noise;
    private final Double guidance;
    private final BufferedImage initImage;
    private final Double strength;
    private final BufferedImage mask;
    private final Integer paddingMaskCrop;
    private final List<BufferedImage> referenceImages;
    private final int numImages;
    private final List<LoraSpec> loras;

    private GenerationRequest(Builder b) {
        this.prompt = b.prompt;
        this.negativePrompt = b.negativePrompt;
        this.width = b.width;
        this.height = b.height;
        this.steps = b.customSigmas != null ? Integer.valueOf(b.customSigmas.length) : b.steps;
        this.customSigmas = b.customSigmas == null ? null : b.customSigmas.clone();
        this.seed = b.seed;
        this.noise = b.noise == null ? null : b.noise.clone();
        this.guidance = b.guidance;
        this.initImage = b.initImage;
        this.strength = b.strength;
        this.mask = b.mask;
        this.referenceImages = List.copyOf(b.references);
        this.paddingMaskCrop = b.paddingMaskCrop;
        this.numImages = b.numImages;
        this.loras = b.checkedLoras();
    }

    /**
     * @param prompt the prompt, used verbatim (no trimming); may be empty but not null
     * @return a builder with every other value unset
     */
    public static Builder builder(String prompt) {
        return new Builder().prompt(prompt);
    }

    /** @return a builder with every value unset (the prompt must be set before {@code build()}) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder initialised with this request's values */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.prompt = prompt;
        b.negativePrompt = negativePrompt;
        b.width = width;
        b.height = height;
        b.steps = customSigmas == null ? steps : null;
        b.customSigmas = customSigmas == null ? null : customSigmas.clone();
        b.seed = seed;
        b.noise = noise == null ? null : noise.clone();
        b.guidance = guidance;
        b.initImage = initImage;
        b.strength = strength;
        b.mask = mask;
        b.paddingMaskCrop = paddingMaskCrop;
        referenceImages.forEach(b::addReferenceImage);
        b.numImages = numImages;
        loras.forEach(l -> b.lora(l.file(), l.scale()));
        return b;
    }

    /** @return the prompt, verbatim */
    public String prompt() {
        return prompt;
    }

    /** @return the negative prompt used for classifier-free guidance on base models (default empty) */
    public String negativePrompt() {
        return negativePrompt;
    }

    /** @return the requested width in pixels, if set */
    public OptionalInt width() {
        return width == null ? OptionalInt.empty() : OptionalInt.of(width);
    }

    /** @return the requested height in pixels, if set */
    public OptionalInt height() {
        return height == null ? OptionalInt.empty() : OptionalInt.of(height);
    }

    /** @return the requested step count, if set (equal to the custom sigma count when sigmas are given) */
    public OptionalInt steps() {
        return steps == null ? OptionalInt.empty() : OptionalInt.of(steps);
    }

    /** @return a copy of the custom (unshifted) sigmas, if given */
    public Optional<float[]> customSigmas() {
        return Optional.ofNullable(customSigmas).map(float[]::clone);
    }

    /** @return the seed, if set */
    public OptionalLong seed() {
        return seed == null ? OptionalLong.empty() : OptionalLong.of(seed);
    }

    /** @return a copy of the explicit initial noise, if given (layout [128, H/16, W/16], C order) */
    public Optional<float[]> noise() {
        return Optional.ofNullable(noise).map(float[]::clone);
    }

    /** @return the guidance scale, if set */
    public OptionalDouble guidance() {
        return guidance == null ? OptionalDouble.empty() : OptionalDouble.of(guidance);
    }

    /** @return the init image for img2img, if set */
    public Optional<BufferedImage> initImage() {
        return Optional.ofNullable(initImage);
    }

    /** @return the img2img strength in [0, 1], if set */
    public OptionalDouble strength() {
        return strength == null ? OptionalDouble.empty() : OptionalDouble.of(strength);
    }

    /**
     * @return the inpainting mask, if set: white repaints, black keeps; binarized at one half at the working size
     *     (docs/pipeline-reference.md §15)
     */
    public Optional<BufferedImage> mask() {
        return Optional.ofNullable(mask);
    }

    /**
     * @return diffusers' {@code padding_mask_crop}, if set: inpaint only the mask's region grown by this many pixels
     *     (docs/pipeline-reference.md §15)
     */
    public OptionalInt paddingMaskCrop() {
        return paddingMaskCrop == null ? OptionalInt.empty() : OptionalInt.of(paddingMaskCrop);
    }

    /** @return the reference images, in order (reference i gets time offset 10(i+1); with a mask 10(i+2)) */
    public List<BufferedImage> referenceImages() {
        return referenceImages;
    }

    /** @return how many images to generate (seeds seed, seed+1, …) */
    public int numImages() {
        return numImages;
    }

    /**
     * @return the LoRA adapters, in the order given (they stack: their low-rank updates add up, each with its scale);
     *     empty: the base model
     */
    public List<LoraSpec> loras() {
        return loras;
    }

    /**
     * @param o another object
     * @return whether it is a request with the same values (arrays by content, images by identity)
     */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GenerationRequest r)) {
            return false;
        }
        return numImages == r.numImages
                && prompt.equals(r.prompt)
                && negativePrompt.equals(r.negativePrompt)
                && Objects.equals(width, r.width)
                && Objects.equals(height, r.height)
                && Objects.equals(steps, r.steps)
                && Arrays.equals(customSigmas, r.customSigmas)
                && Objects.equals(seed, r.seed)
                && Arrays.equals(noise, r.noise)
                && Objects.equals(guidance, r.guidance)
                && initImage == r.initImage
                && Objects.equals(strength, r.strength)
                && mask == r.mask
                && Objects.equals(paddingMaskCrop, r.paddingMaskCrop)
                && sameImages(referenceImages, r.referenceImages)
                && loras.equals(r.loras);
    }

    private static boolean sameImages(List<BufferedImage> a, List<BufferedImage> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.get(i) != b.get(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(
                prompt, negativePrompt, width, height, steps, seed, guidance, strength, paddingMaskCrop, numImages);
        h = 31 * h + Arrays.hashCode(customSigmas);
        h = 31 * h + loras.hashCode();
        h = 31 * h + Arrays.hashCode(noise);
        h = 31 * h + System.identityHashCode(initImage);
        h = 31 * h + System.identityHashCode(mask);
        for (BufferedImage reference : referenceImages) {
            h = 31 * h + System.identityHashCode(reference);
        }
        return h;
    }

    /** @return the values, with prompts quoted and images by size (never their pixels) */
    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "GenerationRequest[prompt=\"%s\", negativePrompt=\"%s\", width=%s, height=%s, steps=%s, sigmas=%s,"
                        + " seed=%s, noise=%s, guidance=%s, initImage=%s, strength=%s, mask=%s, paddingMaskCrop=%s,"
                        + " referenceImages=%s,"
                        + " numImages=%d, loras=%s]",
                prompt,
                negativePrompt,
                width,
                height,
                steps,
                customSigmas == null ? null : Arrays.toString(customSigmas),
                seed,
                noise == null ? null : noise.length + " values",
                guidance,
                size(initImage),
                strength,
                size(mask),
                paddingMaskCrop,
                referenceImages.stream().map(GenerationRequest::size).toList(),
                numImages,
                loras);
    }

    private static String size(BufferedImage image) {
        return image == null ? null : image.getWidth() + "x" + image.getHeight();
    }

    /**
     * Mutable builder of {@link GenerationRequest}. Setters only record values; {@link #build()} validates them all
     * and throws {@link InvalidRequestException} (or {@link InvalidImageException}) naming the first bad one.
     * Not thread-safe.
     */
    public static final class Builder {
        private String prompt;
        private String negativePrompt = "";
        private Integer width;
        private Integer height;
        private Integer steps;
        private float[] customSigmas;
        private Long seed;
        private float[] noise;
        private Double guidance;
        private BufferedImage initImage;
        private Double strength;
        private BufferedImage mask;
        private Integer paddingMaskCrop;
        private final List<BufferedImage> references = new ArrayList<>();
        /** Where each reference came from (null: unnamed), for build()'s messages only; not part of the value. */
        private final List<String> referenceSources = new ArrayList<>();

        private int numImages = 1;
        /** The LoRAs as given, checked (and made {@link LoraSpec}s) by build() only. */
        private final List<Path> loraFiles = new ArrayList<>();

        private final List<Double> loraScales = new ArrayList<>();
        private GenerationLimits limits;

        private Builder() {}

        /** @param prompt the prompt, used verbatim; may be empty but not null @return this */
        public Builder prompt(String prompt) {
            this.prompt = prompt;
            return this;
        }

        /** @param negativePrompt the negative prompt for base-model CFG (default empty) @return this */
        public Builder negativePrompt(String negativePrompt) {
            this.negativePrompt = negativePrompt;
            return this;
        }

        /** @param width output width in pixels, a positive multiple of 16 @return this */
        public Builder width(int width) {
            this.width = width;
            return this;
        }

        /** @param height output height in pixels, a positive multiple of 16 @return this */
        public Builder height(int height) {
            this.height = height;
            return this;
        }

        /**
         * @param width output width in pixels, a positive multiple of 16
         * @param height output height in pixels, a positive multiple of 16
         * @return this
         */
        public Builder size(int width, int height) {
            return width(width).height(height);
        }

        /** @param steps number of denoising steps, ≥ 1 @return this */
        public Builder steps(int steps) {
            this.steps = steps;
            return this;
        }

        /**
         * Replaces the default {@code linspace(1, 1/n, n)} sigmas with a custom list. The empirical-mu time shift is
         * still applied (as in diffusers' {@code sigmas=} argument) and a final 0 is appended; the step count is
         * the list's length.
         *
         * @param sigmas unshifted sigmas, each in (0, 1], non-increasing
         * @return this
         */
        public Builder sigmas(float... sigmas) {
            this.customSigmas = sigmas == null ? null : sigmas.clone();
            return this;
        }

        /** @param seed seed of the PyTorch-compatible noise generator @return this */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Supplies the initial noise instead of drawing it from a seed.
         *
         * @param noise {@code 128·(H/16)·(W/16)} values in the patchified layout [128, H/16, W/16], C order (what
         *     {@code torch.randn(1, 128, H/16, W/16)} gives); copied
         * @return this
         */
        public Builder noise(float[] noise) {
            this.noise = noise == null ? null : noise.clone();
            return this;
        }

        /**
         * @param guidance classifier-free guidance scale; used only by base (non-distilled) models, where a value
         *     above 1 enables CFG with the negative prompt
         * @return this
         */
        public Builder guidance(double guidance) {
            this.guidance = guidance;
            return this;
        }

        /**
         * @param image init image for img2img; kept by reference, never mutated. Without an explicit size the
         *     output size is derived from it (area capped at 1024², floored to multiples of 16)
         * @return this
         */
        public Builder initImage(BufferedImage image) {
            this.initImage = image;
            return this;
        }

        /**
         * @param strength img2img strength in [0, 1]: 1 starts from pure noise, small values keep more of the init
         *     image. Steps run = n − int(n − n·strength) (diffusers' rule); 0 leaves no step and is rejected. The
         *     default is 0.8, lowered for few-step schedules to the largest strength that still starts below
         *     σ = 1 (for 4 steps: 0.75, so 3 of 4 steps run); a strength at which the init image cannot influence
         *     the result (the schedule starts at σ = 1, pure noise) is run with a warning in the result's
         *     metadata
         * @return this
         */
        public Builder strength(double strength) {
            this.strength = strength;
            return this;
        }

        /**
         * Inpainting, as diffusers' {@code Flux2KleinInpaintPipeline}: repaints the init image where the mask is
         * white and keeps it where it is black. The mask is resized to the working size with Lanczos, converted to
         * grey and binarized at one half (grey is not partial); the init image also conditions the transformer as
         * a reference (time offset 10) before the reference images (20, 30, …). Needs an init image.
         *
         * @param image the mask, any size (stretched to the working size) and any colour model; kept by reference
         * @return this
         */
        public Builder mask(BufferedImage image) {
            this.mask = image;
            return this;
        }

        /**
         * diffusers' {@code padding_mask_crop}: generate only on the mask's bounding box grown by {@code pixels} on
         * every side and widened to the working aspect ratio, "fill"-resized to the working size, then paste the
         * result back into the init image through the mask, so the output has the init image's size (after the
         * 1024² area cap) and is the init image exactly where the mask is black. The mask must have that size.
         *
         * @param pixels the padding, ≥ 0; needs a mask
         * @return this
         */
        public Builder paddingMaskCrop(int pixels) {
            this.paddingMaskCrop = pixels;
            return this;
        }

        /** @param image a reference image for multi-reference editing (appended in order) @return this */
        public Builder addReferenceImage(BufferedImage image) {
            return addReferenceImage(image, null);
        }

        /**
         * @param image a reference image for multi-reference editing (appended in order)
         * @param source where it came from, for example its file, named in {@link #build()}'s refusals of it (not
         *     part of the request's value); null: unnamed
         * @return this
         */
        public Builder addReferenceImage(BufferedImage image, String source) {
            references.add(Objects.requireNonNull(image, "reference image"));
            referenceSources.add(source);
            return this;
        }

        /** @param images reference images, replacing any added before @return this */
        public Builder referenceImages(List<BufferedImage> images) {
            references.clear();
            referenceSources.clear();
            images.forEach(this::addReferenceImage);
            return this;
        }

        /** @param numImages number of images, ≥ 1; image k uses seed + k @return this */
        public Builder numImages(int numImages) {
            this.numImages = numImages;
            return this;
        }

        /**
         * Adds a LoRA adapter (repeatable; the order is kept and the adapters stack, as diffusers'
         * {@code set_adapters([...], adapter_weights=[...])}). The file is read by the pipeline, not here.
         *
         * @param file the LoRA safetensors file (diffusers/PEFT, BFL/ai-toolkit or kohya layout)
         * @param scale its weight, finite; 1 applies it as trained, 0 leaves the image as without it
         * @return this
         */
        public Builder lora(Path file, double scale) {
            loraFiles.add(file);
            loraScales.add(scale);
            return this;
        }

        /** @param loras LoRA adapters, replacing any added before, in order @return this */
        public Builder loras(List<LoraSpec> loras) {
            loraFiles.clear();
            loraScales.clear();
            loras.forEach(l -> lora(Objects.requireNonNull(l, "lora").file(), l.scale()));
            return this;
        }

        /**
         * @param limits limits whose {@link GenerationLimits#maxSide()} {@link #build()} checks the width and height
         *     against, so that a size too large is refused as the request is built (default: none here); the
         *     pipeline checks the whole request against its own limits when it generates
         * @return this
         */
        public Builder limits(GenerationLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * Validates every value and builds the request: every check that needs no model (sizes, steps, sigmas,
         * strength, noise, the init image's working size, the references' sizes and aspect ratios) is made here.
         * Reads no file and asks nothing of the machine.
         *
         * @return the request
         * @throws InvalidRequestException naming the parameter, the expected and the given value
         * @throws InvalidImageException when an image is too small or too elongated for the pipeline
         */
        public GenerationRequest build() {
            if (prompt == null) {
                throw new InvalidRequestException("prompt must not be null (use \"\" for an empty prompt)");
            }
            if (negativePrompt == null) {
                throw new InvalidRequestException("negativePrompt must not be null (use \"\" for none)");
            }
            RequestValidation.checkPromptLength("prompt", prompt);
            RequestValidation.checkPromptLength("negativePrompt", negativePrompt);
            // Only limits set on this builder apply here; a pipeline's own limits are checked when it generates.
            int maxSide = limits != null ? limits.maxSide() : Integer.MAX_VALUE;
            RequestValidation.checkSize("width", width, maxSide);
            RequestValidation.checkSize("height", height, maxSide);
            if (customSigmas != null) {
                RequestValidation.checkSigmas(customSigmas, steps);
            } else if (steps != null && steps < 1) {
                throw new InvalidRequestException("steps must be >= 1, got " + steps);
            }
            if (guidance != null && !(guidance >= 0.0 && Double.isFinite(guidance))) {
                throw new InvalidRequestException("guidance must be a finite value >= 0, got " + guidance);
            }
            if (numImages < 1) {
                throw new InvalidRequestException("numImages must be >= 1, got " + numImages);
            }
            if (noise != null && numImages != 1) {
                throw new InvalidRequestException(
                        "explicit noise describes one image, so numImages must be 1, got " + numImages);
            }
            if (noise != null && seed != null) {
                throw new InvalidRequestException("set either a seed or explicit noise, not both");
            }
            if (noise != null) {
                RequestValidation.checkNoiseValues(noise);
            }
            BufferedImage init = initImage;
            if (strength != null) {
                if (!(strength >= 0.0 && strength <= 1.0)) {
                    throw new InvalidRequestException("strength must be in [0, 1], got " + strength);
                }
                if (init == null) {
                    throw new InvalidRequestException("strength " + strength + " was given without an init image");
                }
                if (strength == 0.0) {
                    throw new InvalidRequestException("strength 0 leaves no denoising step to run (t_start = steps);"
                            + " use a strength in (0, 1]");
                }
                if (strength < MIN_STRENGTH) {
                    // n − n·strength rounds to n in double for some step counts: no step would run, and the model
                    // (not yet known here) decides the step count, so refuse it now rather than after loading.
                    throw new InvalidRequestException("strength " + strength + " is below the smallest strength "
                            + MIN_STRENGTH + " (GenerationRequest.MIN_STRENGTH): it leaves no denoising step to run;"
                            + " use a strength in [" + MIN_STRENGTH + ", 1]");
                }
                Integer knownSteps = customSigmas != null ? Integer.valueOf(customSigmas.length) : steps;
                if (knownSteps != null) {
                    RequestRules.startIndex(knownSteps, strength);
                }
            }
            if (init != null) {
                // The same checks the preprocessor makes after the model loads, made now (nothing is resized here).
                RequestRules.checkInit(
                        init,
                        width == null ? OptionalInt.empty() : OptionalInt.of(width),
                        height == null ? OptionalInt.empty() : OptionalInt.of(height));
            }
            BufferedImage maskImage = mask;
            if (maskImage != null && init == null) {
                throw new InvalidRequestException("a mask was given without an init image: inpainting repaints the"
                        + " init image where the mask is white, so set initImage too");
            }
            if (maskImage != null && !maskImage.getColorModel().hasAlpha()) {
                // A mask with alpha may still be in OpenAI's convention (transparent = edit), converted later.
                RequestValidation.checkMaskNotBlack(maskImage);
            }
            if (paddingMaskCrop != null && paddingMaskCrop < 0) {
                throw new InvalidRequestException("paddingMaskCrop must be >= 0 pixels, got " + paddingMaskCrop);
            }
            if (paddingMaskCrop != null && maskImage == null) {
                throw new InvalidRequestException("paddingMaskCrop " + paddingMaskCrop + " was given without a"
                        + " mask: it pads the mask's region, so set mask (and initImage) too");
            }
            if (paddingMaskCrop != null) {
                RequestRules.checkCropSize(maskImage, init);
            }
            for (int i = 0; i < references.size(); i++) {
                RequestValidation.checkReference(references.get(i), i, referenceSources.get(i));
            }
            checkedLoras();
            return new GenerationRequest(this);
        }

        private List<LoraSpec> checkedLoras() {
            List<LoraSpec> specs = new ArrayList<>(loraFiles.size());
            for (int i = 0; i < loraFiles.size(); i++) {
                Path file = loraFiles.get(i);
                double scale = loraScales.get(i);
                if (file == null) {
                    throw new InvalidRequestException("lora " + i + " has no file: name the LoRA safetensors file");
                }
                if (!Double.isFinite(scale)) {
                    throw new InvalidRequestException(
                            "lora " + i + " (" + file + ") scale must be a finite number, got " + scale);
                }
                specs.add(new LoraSpec(file, scale));
            }
            return List.copyOf(specs);
        }
    }
}
