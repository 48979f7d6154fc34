package dev.flux2.math;

import java.util.Objects;

/**
 * The latent side of diffusers' {@code Flux2KleinInpaintPipeline} (docs/pipeline-reference.md §15): the pixel mask
 * brought to the token grid ({@code prepare_mask_latents}) and the blending after every Euler step. Stateless and
 * thread-safe; float32 throughout, in the reference's order of operations.
 */
public final class MaskBlending {
    private static final int CHANNELS = 128;

    private MaskBlending() {}

    /**
     * {@code torch.nn.functional.interpolate(mask, size=(H/16, W/16), mode="bilinear")} (align_corners False, no
     * antialias) of a [1, 1, H, W] mask: with a scale of exactly 16 every token samples source position
     * {@code 16·i + 7.5}, i.e. the mean of the 2×2 pixels at rows 16i+7, 16i+8 and columns 16j+7, 16j+8. Packed, one
     * value per token, broadcast over the 128 channels.
     *
     * @param mask {@code width·height} values, row-major
     * @param width the pixel width
     * @param height the pixel height
     * @param gridWidth the token grid width (the output width)
     * @param gridHeight the token grid height
     * @return {@code gridWidth·gridHeight} values in token order
     */
    public static float[] tokenMask(float[] mask, int width, int height, int gridWidth, int gridHeight) {
        Objects.requireNonNull(mask, "mask");
        if (mask.length != width * height) {
            throw new IllegalArgumentException("expected " + width + "x" + height + " mask values, got " + mask.length);
        }
        float scaleY = (float) height / gridHeight;
        float scaleX = (float) width / gridWidth;
        float[] out = new float[gridWidth * gridHeight];
        for (int i = 0; i < gridHeight; i++) {
            Source sy = Source.of(scaleY, i, height);
            for (int j = 0; j < gridWidth; j++) {
                Source sx = Source.of(scaleX, j, width);
                float top = sx.w0 * mask[sy.i0 * width + sx.i0] + sx.w1 * mask[sy.i0 * width + sx.i1];
                float bottom = sx.w0 * mask[sy.i1 * width + sx.i0] + sx.w1 * mask[sy.i1 * width + sx.i1];
                out[i * gridWidth + j] = sy.w0 * top + sy.w1 * bottom;
            }
        }
        return out;
    }

    /** torch's {@code area_pixel_compute_source_index} and neighbour weights, in float. */
    private record Source(int i0, int i1, float w0, float w1) {
        static Source of(float scale, int dst, int inSize) {
            float src = Math.max(scale * (dst + 0.5f) - 0.5f, 0f);
            int i0 = (int) src;
            int i1 = i0 < inSize - 1 ? i0 + 1 : i0;
            float w1 = src - i0;
            return new Source(i0, i1, 1f - w1, w1);
        }
    }

    /**
     * The blending after the Euler step of loop index {@code i}: {@code init' = σ_next·noise + (1 − σ_next)·x0} (the
     * scheduler's {@code scale_noise} at the next step index), or the clean {@code x0} after the last step; then
     * {@code x ← (1 − m)·init' + m·x} per token.
     *
     * @param x the packed latent after the Euler step, N·128; overwritten
     * @param x0 the packed clean init latent, N·128; not modified
     * @param noise the packed initial noise of this image, N·128; not modified
     * @param tokenMask N values from {@link #tokenMask}
     * @param sigmaNext σ of the next schedule index
     * @param last whether this was the last step (then no noise is added to x0)
     */
    public static void blend(float[] x, float[] x0, float[] noise, float[] tokenMask, float sigmaNext, boolean last) {
        if (x.length != x0.length || x.length != noise.length || x.length != tokenMask.length * CHANNELS) {
            throw new IllegalArgumentException("lengths differ: x " + x.length + ", x0 " + x0.length + ", noise "
                    + noise.length + ", mask " + tokenMask.length + " tokens of " + CHANNELS);
        }
        float keep = 1f - sigmaNext;
        for (int t = 0; t < tokenMask.length; t++) {
            float m = tokenMask[t];
            float inverse = 1f - m;
            int base = t * CHANNELS;
            for (int f = base; f < base + CHANNELS; f++) {
                float init = last ? x0[f] : sigmaNext * noise[f] + keep * x0[f];
                x[f] = inverse * init + m * x[f];
            }
        }
    }
}
