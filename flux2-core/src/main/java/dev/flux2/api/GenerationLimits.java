package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The largest work a request may ask for: output size, steps, images per request, reference images and the size of
 * input images. An immutable value; {@code Flux2Pipeline.Builder.limits(GenerationLimits)} sets it on a pipeline,
 * which checks every request against it before any backend call, and {@code dev.flux2.ImageFiles.read} checks image files
 * from their header before decoding them. Each refusal is an
 * {@link InvalidRequestException} (an {@link InvalidImageException} for images) naming the limit, its value and the
 * value asked for.
 *
 * <p>Defaults ({@link #defaults()}), each replaceable with the builder:
 *
 * <ul>
 *   <li>{@code maxPixels} (width·height): the smaller of 2048² (FLUX.2's 4-megapixel range) and what half the physical
 *       memory holds at 2 KiB per output pixel (the VAE decoder's
 *       full-resolution activations); a pipeline never goes below its model's default size
 *       ({@link #forModel(ModelInfo)});
 *   <li>{@code maxSide}: 4096 pixels (at least the model's default side);
 *   <li>{@code maxSteps}: 200, or 4 × the model's default steps when that is more;
 *   <li>{@code maxImages} per request: 16; {@code maxReferences}: 10;
 *   <li>{@code maxInputPixels}: the smaller of 64 Mi pixels (8192²) and the heap's maximum divided by 12 bytes (what
 *       decoding and resizing one input pixel takes); {@code maxInputSide}: 16384.
 * </ul>
 *
 * <p>Besides these fixed limits every check estimates the Java heap a request's arrays need and refuses a request
 * whose estimate exceeds the heap's maximum, so a large size fails with a message instead of an
 * {@link OutOfMemoryError}.
 */
public final class GenerationLimits {
    /** Default {@code maxPixels} before the memory cap: 2048². */
    public static final long DEFAULT_MAX_PIXELS = 2048L * 2048L;
    /** Default {@code maxSide}. */
    public static final int DEFAULT_MAX_SIDE = 4096;
    /** Default {@code maxSteps} (a model whose default is higher gets 4 × its default). */
    public static final int DEFAULT_MAX_STEPS = 200;
    /** Default {@code maxImages}. */
    public static final int DEFAULT_MAX_IMAGES = 16;
    /** Default {@code maxReferences}. */
    public static final int DEFAULT_MAX_REFERENCES = 10;
    /** Default {@code maxInputPixels} before the heap cap: 8192². */
    public static final long DEFAULT_MAX_INPUT_PIXELS = 8192L * 8192L;
    /** Default {@code maxInputSide}. */
    public static final int DEFAULT_MAX_INPUT_SIDE = 16384;
    /**
     * The longest prompt (and negative prompt) accepted, in UTF-16 chars (so at most 192 KiB of UTF-8), checked by
     * {@link GenerationRequest.Builder#build()} before any text reaches the tokenizer's native code. Fixed, not a
     * per-pipeline setting: HuggingFace tokenizers' regex engine aborts the whole JVM (a Rust panic, uncatchable) on
     * some inputs of millions of characters, and a text encoder of 512 tokens reads only the first few thousand
     * characters of any prompt. 65,536 chars of the worst input measured (a run of spaces) tokenize in well under a
     * second.
     */
    public static final int MAX_PROMPT_CHARS = 65_536;

    private static final int STEPS_PER_DEFAULT = 4;

    private static final int PIXELS = 1;
    private static final int SIDE = 2;
    private static final int STEPS = 4;

    private final long maxPixels;
    private final int maxSide;
    private final int maxSteps;
    private final int maxImages;
    private final int maxReferences;
    private final long maxInputPixels;
    private final int maxInputSide;
    /** Which of the model-dependent limits were set explicitly (and so are not raised by forModel). */
    private final int explicit;

    private GenerationLimits(Builder b) {
        this.maxPixels = b.maxPixels;
        this.maxSide = b.maxSide;
        this.maxSteps = b.maxSteps;
        this.maxImages = b.maxImages;
        this.maxReferences = b.maxReferences;
        this.maxInputPixels = b.maxInputPixels;
        this.maxInputSide = b.maxInputSide;
        this.explicit = b.explicit;
    }

    /** @return the default limits for this machine (see the class description) */
    public static GenerationLimits defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these limits */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxPixels = maxPixels;
        b.maxSide = maxSide;
        b.maxSteps = maxSteps;
        b.maxImages = maxImages;
        b.maxReferences = maxReferences;
        b.maxInputPixels = maxInputPixels;
        b.maxInputSide = maxInputSide;
        b.explicit = explicit;
        return b;
    }

    /**
     * Raises the limits that were not set explicitly so that the model's own defaults always pass: {@code maxPixels}
     * and {@code maxSide} to at least the default size, {@code maxSteps} to at least 4 × the default steps.
     *
     * @param model the model
     * @return the limits for this model
     */
    public GenerationLimits forModel(ModelInfo model) {
        Builder b = toBuilder();
        if ((explicit & PIXELS) == 0) {
            b.maxPixels = Math.max(maxPixels, (long) model.defaultWidth() * model.defaultHeight());
        }
        if ((explicit & SIDE) == 0) {
            b.maxSide = Math.max(maxSide, Math.max(model.defaultWidth(), model.defaultHeight()));
        }
        if ((explicit & STEPS) == 0) {
            b.maxSteps = (int)
                    Math.min(Integer.MAX_VALUE, Math.max(maxSteps, (long) STEPS_PER_DEFAULT * model.defaultSteps()));
        }
        return b.build();
    }

    /** @return the largest output width·height */
    public long maxPixels() {
        return maxPixels;
    }

    /** @return the longest output side in pixels */
    public int maxSide() {
        return maxSide;
    }

    /** @return the most denoising steps */
    public int maxSteps() {
        return maxSteps;
    }

    /** @return the most images per request */
    public int maxImages() {
        return maxImages;
    }

    /** @return the most reference images per request */
    public int maxReferences() {
        return maxReferences;
    }

    /** @return the largest init or reference image, width·height, as decoded */
    public long maxInputPixels() {
        return maxInputPixels;
    }

    /** @return the longest side of an init or reference image */
    public int maxInputSide() {
        return maxInputSide;
    }

    /**
     * Checks everything a request states explicitly (size, steps, image count, references and the images' own
     * sizes); values left to the model's defaults are checked by {@link #checkResolved} once the model is known.
     *
     * @param request the request
     * @throws InvalidRequestException naming the limit and the value
     */
    public void checkRequest(GenerationRequest request) {
        if (request.width().isPresent() && request.height().isPresent()) {
            checkSize(request.width().getAsInt(), request.height().getAsInt(), request.numImages());
        } else {
            request.width().ifPresent(w -> checkSide("width", w));
            request.height().ifPresent(h -> checkSide("height", h));
        }
        request.steps().ifPresent(this::checkSteps);
        checkImages(request.numImages());
        List<BufferedImage> references = request.referenceImages();
        if (references.size() > maxReferences) {
            throw new InvalidRequestException(String.format(
                    Locale.ROOT,
                    "%d reference images exceed the limit maxReferences = %d",
                    references.size(),
                    maxReferences));
        }
        Optional<BufferedImage> init = request.initImage();
        init.ifPresent(i -> checkInputImage("init image", i.getWidth(), i.getHeight()));
        for (int i = 0; i < references.size(); i++) {
            checkInputImage(
                    "reference image " + i,
                    references.get(i).getWidth(),
                    references.get(i).getHeight());
        }
    }

    /**
     * Checks a request once the model's defaults are filled in.
     *
     * @param width the output width
     * @param height the output height
     * @param steps the schedule's step count
     * @param numImages images in the request
     * @throws InvalidRequestException naming the limit and the value
     */
    public void checkResolved(int width, int height, int steps, int numImages) {
        checkSize(width, height, numImages);
        checkSteps(steps);
        checkImages(numImages);
    }

    /**
     * Checks an input image's size as its file header states it, before any pixel is decoded.
     *
     * @param what the image's role and file, for the message
     * @param width its width
     * @param height its height
     * @throws InvalidImageException naming the limit and the size
     */
    public void checkInputImage(String what, long width, long height) {
        if (width > maxInputSide || height > maxInputSide) {
            throw new InvalidImageException(String.format(
                    Locale.ROOT,
                    "%s is %dx%d pixels; its longer side exceeds the limit maxInputSide = %d",
                    what,
                    width,
                    height,
                    maxInputSide));
        }
        long pixels = width * height;
        if (pixels > maxInputPixels) {
            throw new InvalidImageException(String.format(
                    Locale.ROOT,
                    "%s is %dx%d = %d pixels, more than the limit maxInputPixels = %d",
                    what,
                    width,
                    height,
                    pixels,
                    maxInputPixels));
        }
    }

    /**
     * Checks that decoding an image of this size fits the Java heap that is free now: the decoded image, its packed
     * copy and the resizing rows ({@value MemoryBudget#HEAP_BYTES_PER_INPUT_PIXEL} bytes per pixel). Reads the
     * heap's state at the call, so it belongs where the image is read, just before decoding.
     *
     * @param what the image's role and file, for the message
     * @param width its width, from the file's header
     * @param height its height, from the file's header
     * @throws InvalidImageException naming the size, the heap needed and the heap free
     */
    public void checkDecodeHeap(String what, long width, long height) {
        long need = width * height * MemoryBudget.HEAP_BYTES_PER_INPUT_PIXEL;
        long available = MemoryBudget.availableHeap();
        if (need > available) {
            throw new InvalidImageException(String.format(
                    Locale.ROOT,
                    "%s is %dx%d pixels; decoding it needs about %d MiB of Java heap but only %d MiB is free"
                            + " (raise -Xmx or use a smaller image)",
                    what,
                    width,
                    height,
                    MemoryBudget.mib(need),
                    MemoryBudget.mib(available)));
        }
    }

    private void checkSize(int width, int height, int numImages) {
        checkSide("width", width);
        checkSide("height", height);
        long pixels = (long) width * height;
        if (pixels > maxPixels) {
            throw new InvalidRequestException(String.format(
                    Locale.ROOT,
                    "size %dx%d = %d pixels exceeds the limit maxPixels = %d (about %dx%d)",
                    width,
                    height,
                    pixels,
                    maxPixels,
                    (int) Math.sqrt(maxPixels),
                    (int) Math.sqrt(maxPixels)));
        }
        long heap = pixels * MemoryBudget.HEAP_BYTES_PER_OUTPUT_PIXEL + pixels * 8L * (numImages - 1);
        long max = MemoryBudget.maxHeap();
        if (heap > max) {
            throw new InvalidRequestException(String.format(
                    Locale.ROOT,
                    "size %dx%d with %d image(s) needs about %d MiB of Java heap, more than the maximum heap of %d MiB"
                            + " (raise -Xmx or ask for a smaller size)",
                    width,
                    height,
                    numImages,
                    MemoryBudget.mib(heap),
                    MemoryBudget.mib(max)));
        }
    }

    private void checkSide(String name, int value) {
        if (value > maxSide) {
            throw new InvalidRequestException(
                    String.format(Locale.ROOT, "%s %d exceeds the limit maxSide = %d", name, value, maxSide));
        }
    }

    private void checkSteps(int steps) {
        if (steps > maxSteps) {
            throw new InvalidRequestException(
                    String.format(Locale.ROOT, "steps %d exceeds the limit maxSteps = %d", steps, maxSteps));
        }
    }

    private void checkImages(int numImages) {
        if (numImages > maxImages) {
            throw new InvalidRequestException(
                    String.format(Locale.ROOT, "numImages %d exceeds the limit maxImages = %d", numImages, maxImages));
        }
    }

    @Override
    public String toString() {
        return String.format(
                Locale.ROOT,
                "GenerationLimits[maxPixels=%d, maxSide=%d, maxSteps=%d, maxImages=%d, maxReferences=%d,"
                        + " maxInputPixels=%d, maxInputSide=%d]",
                maxPixels,
                maxSide,
                maxSteps,
                maxImages,
                maxReferences,
                maxInputPixels,
                maxInputSide);
    }

    /** Builder of {@link GenerationLimits}, starting from the defaults; validated in {@link #build()}. */
    public static final class Builder {
        private long maxPixels;
        private int maxSide = DEFAULT_MAX_SIDE;
        private int maxSteps = DEFAULT_MAX_STEPS;
        private int maxImages = DEFAULT_MAX_IMAGES;
        private int maxReferences = DEFAULT_MAX_REFERENCES;
        private long maxInputPixels;
        private int maxInputSide = DEFAULT_MAX_INPUT_SIDE;
        private int explicit;

        private Builder() {
            long memoryPixels = MemoryBudget.nativeBudget() / MemoryBudget.NATIVE_BYTES_PER_OUTPUT_PIXEL;
            long heapPixels = MemoryBudget.maxHeap() / MemoryBudget.HEAP_BYTES_PER_OUTPUT_PIXEL;
            this.maxPixels = Math.max(16L * 16L, Math.min(DEFAULT_MAX_PIXELS, Math.min(memoryPixels, heapPixels)));
            this.maxInputPixels = Math.max(
                    64L * 64L,
                    Math.min(
                            DEFAULT_MAX_INPUT_PIXELS,
                            MemoryBudget.maxHeap() / MemoryBudget.HEAP_BYTES_PER_INPUT_PIXEL));
        }

        /** @param pixels the largest output width·height, ≥ 256 @return this */
        public Builder maxPixels(long pixels) {
            this.maxPixels = pixels;
            this.explicit |= PIXELS;
            return this;
        }

        /** @param side the longest output side, ≥ 16 @return this */
        public Builder maxSide(int side) {
            this.maxSide = side;
            this.explicit |= SIDE;
            return this;
        }

        /** @param steps the most denoising steps, ≥ 1 @return this */
        public Builder maxSteps(int steps) {
            this.maxSteps = steps;
            this.explicit |= STEPS;
            return this;
        }

        /** @param images the most images per request, ≥ 1 @return this */
        public Builder maxImages(int images) {
            this.maxImages = images;
            return this;
        }

        /** @param references the most reference images per request, ≥ 0 @return this */
        public Builder maxReferences(int references) {
            this.maxReferences = references;
            return this;
        }

        /** @param pixels the largest input image (width·height), ≥ 256 @return this */
        public Builder maxInputPixels(long pixels) {
            this.maxInputPixels = pixels;
            return this;
        }

        /** @param side the longest input image side, ≥ 16 @return this */
        public Builder maxInputSide(int side) {
            this.maxInputSide = side;
            return this;
        }

        /**
         * @return the limits
         * @throws InvalidRequestException naming a value out of range
         */
        public GenerationLimits build() {
            require("maxPixels", maxPixels, 256);
            require("maxSide", maxSide, 16);
            require("maxSteps", maxSteps, 1);
            require("maxImages", maxImages, 1);
            require("maxReferences", maxReferences, 0);
            require("maxInputPixels", maxInputPixels, 256);
            require("maxInputSide", maxInputSide, 16);
            return new GenerationLimits(this);
        }

        private static void require(String name, long value, long min) {
            if (value < min) {
                throw new InvalidRequestException(name + " must be >= " + min + ", got " + value);
            }
        }
    }
}
