package dev.flux2.api;

import java.awt.image.BufferedImage;

/** The checks shared by {@link GenerationRequest.Builder} and the pipeline; messages say what was expected. */
final class RequestValidation {
    /** Reference images must have both sides at least this long (diffusers {@code check_image_input}). */
    static final int MIN_REFERENCE_SIDE = 64;
    /** Reference images must not be more elongated than this (diffusers {@code check_image_input}). */
    static final double MAX_REFERENCE_ASPECT = 8.0;

    private RequestValidation() {}

    static void checkPromptLength(String name, String text) {
        if (text.length() > GenerationLimits.MAX_PROMPT_CHARS) {
            throw new InvalidRequestException(String.format(
                    java.util.Locale.ROOT,
                    "%s has %d characters, more than the limit of %d (GenerationLimits.MAX_PROMPT_CHARS); the text"
                            + " encoder reads only its first tokens (512 for klein), so shorten it",
                    name,
                    text.length(),
                    GenerationLimits.MAX_PROMPT_CHARS));
        }
    }

    static void checkSize(String name, Integer value, int maxSide) {
        if (value == null) {
            return;
        }
        if (value > maxSide) {
            throw new InvalidRequestException(String.format(
                    java.util.Locale.ROOT,
                    "%s %d exceeds the limit maxSide = %d (largest valid %s: %d)",
                    name,
                    value,
                    maxSide,
                    name,
                    maxSide / 16 * 16));
        }
        if (value < 16 || value % 16 != 0) {
            // In long: value / 16f rounded and times 16 overflowed near Integer.MAX_VALUE ("nearest: 16").
            long nearest = Math.min(maxSide / 16 * 16, Math.max(16L, Math.round(value / 16.0) * 16L));
            throw new InvalidRequestException(name + " must be a positive multiple of 16, got " + value
                    + " (nearest valid " + name + ": " + nearest + ")");
        }
    }

    static void checkSigmas(float[] sigmas, Integer steps) {
        if (sigmas.length < 1) {
            throw new InvalidRequestException("sigmas must contain at least one value, got none");
        }
        if (steps != null && steps != sigmas.length) {
            throw new InvalidRequestException(
                    "steps (" + steps + ") must equal the number of custom sigmas (" + sigmas.length + ")");
        }
        for (int i = 0; i < sigmas.length; i++) {
            float s = sigmas[i];
            if (!(s > 0f && s <= 1f)) {
                throw new InvalidRequestException("sigmas[" + i + "] must be in (0, 1], got " + s);
            }
            if (i > 0 && s > sigmas[i - 1]) {
                throw new InvalidRequestException("sigmas must be non-increasing, but sigmas[" + i + "] = " + s
                        + " > sigmas[" + (i - 1) + "] = " + sigmas[i - 1]);
            }
        }
    }

    static void checkNoiseValues(float[] noise) {
        if (noise.length == 0 || noise.length % RequestRules.LATENT_CHANNELS != 0) {
            throw new InvalidRequestException(
                    "noise must hold " + RequestRules.LATENT_CHANNELS + "·(W/16)·(H/16) values, got " + noise.length);
        }
        for (int i = 0; i < noise.length; i++) {
            if (!Float.isFinite(noise[i])) {
                throw new InvalidRequestException("noise[" + i + "] must be finite, got " + noise[i]);
            }
        }
    }

    /** Below this in every channel of every pixel, no resize brings a pixel to the binarize threshold (128). */
    static final int MASK_SURELY_BLACK_BELOW = 64;

    /**
     * Refuses a mask with nothing to repaint before any model work (issue #33: it was refused only after the model
     * loaded). The exact check is at the working size ({@code InpaintMask}, grey level 128 after a Lanczos resize,
     * whose ringing overshoots by less than a factor 2); a mask whose every channel is below 64 stays below 128
     * whatever the resize, so it is refused here, by the same words.
     */
    static void checkMaskNotBlack(BufferedImage mask) {
        int w = mask.getWidth();
        int h = mask.getHeight();
        int[] row = new int[w];
        for (int y = 0; y < h; y++) {
            mask.getRGB(0, y, w, 1, row, 0, w);
            for (int argb : row) {
                if (((argb >>> 16) & 0xFF) >= MASK_SURELY_BLACK_BELOW
                        || ((argb >>> 8) & 0xFF) >= MASK_SURELY_BLACK_BELOW
                        || (argb & 0xFF) >= MASK_SURELY_BLACK_BELOW) {
                    return;
                }
            }
        }
        throw new InvalidRequestException("the mask of " + w + "x" + h + " is all black (no pixel near grey level 128,"
                + " where white begins): nothing to repaint; white marks what to repaint, black what to keep");
    }

    static void checkReference(BufferedImage img, int index, String source) {
        String name = "reference image " + index + (source == null ? "" : " (" + source + ")");
        int w = img.getWidth();
        int h = img.getHeight();
        if (w < MIN_REFERENCE_SIDE || h < MIN_REFERENCE_SIDE) {
            throw new InvalidImageException(name + " must be at least " + MIN_REFERENCE_SIDE + "x" + MIN_REFERENCE_SIDE
                    + " pixels, got " + w + "x" + h);
        }
        double aspect = Math.max(w, h) / (double) Math.min(w, h);
        if (aspect > MAX_REFERENCE_ASPECT) {
            throw new InvalidImageException(
                    name + " must have an aspect ratio of at most " + MAX_REFERENCE_ASPECT + ":1, got " + w + "x" + h);
        }
    }
}
