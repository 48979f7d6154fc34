package dev.flux2.api;

import java.awt.image.BufferedImage;
import java.util.OptionalInt;

/**
 * The reference pipelines' rules that decide, before any model work, whether a request can run: the patchified
 * latent's channel count (explicit noise), the working size of an init image (diffusers' 1024² area cap and the
 * floor to multiples of 16) and the img2img start index. {@link GenerationRequest.Builder#build()} checks a request
 * with them; the engine applies the same rules when it resizes and schedules, so each has this one home. Stateless.
 */
public final class RequestRules {
    /**
     * Channels of the patchified FLUX.2 latent (32 VAE channels × 2×2 patches): explicit noise holds this many values
     * per token, and every latent crossing the backend SPI has this many channels.
     */
    public static final int LATENT_CHANNELS = 128;
    /** The pixel-area cap of the reference pipelines: larger images are scaled down to about 1024². */
    public static final long MAX_AREA = 1024L * 1024L;
    /** Sides are floored to a multiple of this (VAE factor 8 × patch 2). */
    public static final int MULTIPLE = 16;

    private RequestRules() {}

    /**
     * A size in pixels.
     *
     * @param width columns
     * @param height rows
     */
    public record Size(int width, int height) {}

    /**
     * diffusers {@code _resize_to_target_area}: the scale and the truncations are Python's, in double.
     *
     * @param w the image's width
     * @param h the image's height
     * @return the size as is when its area is at most {@link #MAX_AREA}, else scaled down to about that area
     */
    public static Size capArea(int w, int h) {
        long area = (long) w * h;
        if (area <= MAX_AREA) {
            return new Size(w, h);
        }
        double s = Math.sqrt((double) MAX_AREA / (double) area);
        return new Size((int) (w * s), (int) (h * s));
    }

    /**
     * @param size a (capped) size
     * @param original the image it came from, for the message
     * @param what the image's role, for the message
     * @return the size with both sides floored to multiples of 16
     * @throws InvalidImageException if a side would be smaller than 16 pixels
     */
    public static Size floorTo16(Size size, BufferedImage original, String what) {
        int w = size.width() / MULTIPLE * MULTIPLE;
        int h = size.height() / MULTIPLE * MULTIPLE;
        if (w < MULTIPLE || h < MULTIPLE) {
            throw new InvalidImageException(what + " of " + original.getWidth() + "x" + original.getHeight()
                    + " is " + size.width() + "x" + size.height() + " pixels after the 1024² area cap; both sides"
                    + " must be at least " + MULTIPLE + " pixels");
        }
        return new Size(w, h);
    }

    /**
     * Every check of the init image's preprocessing without its work, so that a request can be refused before the
     * model loads.
     *
     * @param image the init image
     * @param width the requested output width, if any
     * @param height the requested output height, if any
     * @throws InvalidRequestException if a given width or height is not a positive multiple of 16
     * @throws InvalidImageException if the image (or its capped size) is smaller than 16 pixels on a side
     */
    public static void checkInit(BufferedImage image, OptionalInt width, OptionalInt height) {
        checkMultiple("width", width);
        checkMultiple("height", height);
        int w = image.getWidth();
        int h = image.getHeight();
        if (w < MULTIPLE || h < MULTIPLE) {
            throw new InvalidImageException(
                    "init image must be at least " + MULTIPLE + "x" + MULTIPLE + " pixels, got " + w + "x" + h);
        }
        if (width.isEmpty() || height.isEmpty()) {
            floorTo16(capArea(w, h), image, "init image");
        }
    }

    private static void checkMultiple(String name, OptionalInt value) {
        if (value.isPresent()) {
            int v = value.getAsInt();
            if (v < MULTIPLE || v % MULTIPLE != 0) {
                long nearest = Math.max(MULTIPLE, Math.round(v / (double) MULTIPLE) * MULTIPLE);
                throw new InvalidRequestException(name + " must be a positive multiple of 16, got " + v
                        + " (nearest valid " + name + ": " + nearest + ")");
            }
        }
    }

    /**
     * The check of {@code padding_mask_crop} that needs no resizing, made when the request is built (before any
     * model loads) and again by the engine: the mask must have the size of the init image after the 1024² area cap,
     * since diffusers crops both with the same box and pastes the init image through the mask.
     *
     * @param mask the mask
     * @param init the init image, before the cap
     * @throws InvalidRequestException naming both sizes
     */
    public static void checkCropSize(BufferedImage mask, BufferedImage init) {
        Size capped = capArea(init.getWidth(), init.getHeight());
        int w = capped.width();
        int h = capped.height();
        if (mask.getWidth() != w || mask.getHeight() != h) {
            String cap = init.getWidth() == w && init.getHeight() == h
                    ? ""
                    : " (the init image of " + init.getWidth() + "x" + init.getHeight() + " after the 1024² area cap)";
            throw new InvalidRequestException("with a mask crop padding the mask must have the init image's size " + w
                    + "x" + h + cap + ", got a mask of " + mask.getWidth() + "x" + mask.getHeight());
        }
    }

    /**
     * The first schedule index to run ({@code get_timesteps}): {@code init = min(n·strength, n)},
     * {@code t_start = (int) max(n − init, 0)}, evaluated in double in that order to match Python exactly.
     * Steps {@code t_start..n−1} are run.
     *
     * @param steps the full step count n, at least 1
     * @param strength how much of the schedule to run, in [0, 1]
     * @return t_start, such that at least one step remains
     * @throws InvalidRequestException if steps is below 1, strength is outside [0, 1], or the pair leaves no step
     *     to run (e.g. strength 0)
     */
    public static int startIndex(int steps, double strength) {
        if (steps < 1) {
            throw new InvalidRequestException("steps must be at least 1, got " + steps);
        }
        if (!(strength >= 0.0 && strength <= 1.0)) {
            throw new InvalidRequestException("strength must be in [0, 1], got " + strength);
        }
        double init = Math.min(steps * strength, steps);
        int tStart = (int) Math.max(steps - init, 0);
        if (steps - tStart < 1) {
            throw new InvalidRequestException("strength " + strength + " with steps " + steps
                    + " leaves no denoising step to run (t_start = " + tStart + "); increase strength or steps");
        }
        return tStart;
    }
}
