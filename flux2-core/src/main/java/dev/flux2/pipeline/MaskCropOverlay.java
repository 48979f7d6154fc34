package dev.flux2.pipeline;

import dev.flux2.image.CropRegion;
import java.awt.image.BufferedImage;

/**
 * What {@code padding_mask_crop} needs after decoding to fit the generated crop back into the init image
 * ({@code apply_overlay}, docs/pipeline-reference.md §15).
 *
 * @param original the init image after the 1024² area cap; the output has its size
 * @param mask the raw mask, of the same size
 * @param region the crop region the generation ran on
 */
record MaskCropOverlay(BufferedImage original, BufferedImage mask, CropRegion region) {}
