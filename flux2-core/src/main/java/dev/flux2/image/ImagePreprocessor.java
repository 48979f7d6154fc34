package dev.flux2.image;

import dev.flux2.api.RequestRules;
import dev.flux2.api.RequestRules.Size;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Brings init and reference images to a size the pipeline accepts, as the diffusers klein pipelines do
 * (docs/pipeline-reference.md §10). Every result is a new {@code TYPE_INT_RGB} image whose sides are multiples of 16;
 * inputs are converted to RGB as PIL's {@code convert("RGB")} would (alpha dropped). Stateless and thread-safe.
 *
 * <p>PIL resizes RGBA images in premultiplied form; here alpha is dropped before resizing, so semi-transparent
 * regions of RGBA inputs can differ from the reference (opaque images are unaffected).
 */
public final class ImagePreprocessor {

    private ImagePreprocessor() {}

    /**
     * The klein reference-image path: if {@code w·h > 1024²}, LANCZOS-resize to {@code (int(w·s), int(h·s))} with
     * {@code s = sqrt(1024²/(w·h))}; then centre-crop to the sides floored to multiples of 16, with offsets
     * {@code (w' − w'')/2} and {@code (h' − h'')/2} (integer division). The caller checks the reference's minimum
     * size and aspect ratio beforehand.
     *
     * @param image the reference image; not modified
     * @return the prepared image, e.g. 1500×1000 → 1254×836 → crop (3, 2) → 1248×832
     * @throws dev.flux2.api.InvalidImageException if a side would be smaller than 16 pixels
     */
    public static BufferedImage prepareReference(BufferedImage image) {
        Objects.requireNonNull(image, "image");
        Size capped = RequestRules.capArea(image.getWidth(), image.getHeight());
        int[] rgb = PackedRgb.read(image);
        if (capped.width() != image.getWidth() || capped.height() != image.getHeight()) {
            rgb = LanczosResampler.resize(rgb, image.getWidth(), image.getHeight(), capped.width(), capped.height());
        }
        Size floored = RequestRules.floorTo16(capped, image, "reference image");
        int left = (capped.width() - floored.width()) / 2;
        int top = (capped.height() - floored.height()) / 2;
        int[] cropped = PackedRgb.crop(rgb, capped.width(), left, top, floored.width(), floored.height());
        return PackedRgb.toImage(cropped, floored.width(), floored.height());
    }

    /**
     * The img2img init image. With both {@code width} and {@code height}, a LANCZOS resize to exactly that size.
     * Otherwise the INPAINT convention: the area cap of {@link #prepareReference}, the sides floored to multiples
     * of 16, then a plain LANCZOS resize to the floored size (no crop), so the working size comes from the image.
     *
     * @param image the init image; not modified
     * @param width the requested output width, if any (a positive multiple of 16)
     * @param height the requested output height, if any (a positive multiple of 16)
     * @return the prepared image
     * @throws dev.flux2.api.InvalidRequestException if a given width or height is not a positive multiple of 16
     * @throws dev.flux2.api.InvalidImageException if the image (or its capped size) is smaller than 16 pixels on a side
     */
    public static BufferedImage prepareInit(BufferedImage image, OptionalInt width, OptionalInt height) {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(width, "width");
        Objects.requireNonNull(height, "height");
        RequestRules.checkInit(image, width, height);
        int w = image.getWidth();
        int h = image.getHeight();
        int[] rgb = PackedRgb.read(image);
        if (width.isPresent() && height.isPresent()) {
            int tw = width.getAsInt();
            int th = height.getAsInt();
            return PackedRgb.toImage(LanczosResampler.resize(rgb, w, h, tw, th), tw, th);
        }
        Size capped = RequestRules.capArea(w, h);
        if (capped.width() != w || capped.height() != h) {
            rgb = LanczosResampler.resize(rgb, w, h, capped.width(), capped.height());
        }
        Size floored = RequestRules.floorTo16(capped, image, "init image");
        rgb = LanczosResampler.resize(rgb, capped.width(), capped.height(), floored.width(), floored.height());
        return PackedRgb.toImage(rgb, floored.width(), floored.height());
    }

    /**
     * The init image as {@code padding_mask_crop} keeps it for the overlay ({@code original_image}): only the 1024²
     * area cap of {@link #prepareInit} (Lanczos to {@code (int(w·s), int(h·s))}), not floored.
     *
     * @param image the init image; not modified
     * @return a new {@code TYPE_INT_RGB} image, capped
     */
    public static BufferedImage capArea(BufferedImage image) {
        Objects.requireNonNull(image, "image");
        Size capped = RequestRules.capArea(image.getWidth(), image.getHeight());
        int[] rgb = PackedRgb.read(image);
        if (capped.width() != image.getWidth() || capped.height() != image.getHeight()) {
            rgb = LanczosResampler.resize(rgb, image.getWidth(), image.getHeight(), capped.width(), capped.height());
        }
        return PackedRgb.toImage(rgb, capped.width(), capped.height());
    }

    /**
     * The init image with {@code padding_mask_crop} ({@code preprocess(image, H, W, crops_coords,
     * resize_mode="fill")}): cropped to the region, then the "fill" resize to the working size.
     *
     * @param capped the init image after {@link #capArea(BufferedImage)}; not modified
     * @param crop the crop region, inside the image
     * @param width the working width, a multiple of 16
     * @param height the working height, a multiple of 16
     * @return a new {@code width×height} {@code TYPE_INT_RGB} image
     */
    public static BufferedImage prepareInitCrop(BufferedImage capped, CropRegion crop, int width, int height) {
        int[] rgb = PackedRgb.crop(
                PackedRgb.read(capped), capped.getWidth(), crop.x1(), crop.y1(), crop.width(), crop.height());
        return PackedRgb.toImage(FillResize.fill(rgb, crop.width(), crop.height(), width, height), width, height);
    }

    /**
     * Several {@code image_reference} images of the inpaint pipeline, which diffusers preprocesses as one list: the
     * size is the first image's, floored to multiples of 16, with no area cap ({@code image_processor.resize}
     * returns a list unchanged), and every image is centre-cropped to it without resizing
     * ({@code Flux2ImageProcessor._resize_and_crop}); where an image is smaller, PIL's crop fills with black.
     *
     * @param images two or more reference images; not modified
     * @return the prepared images, all of the first one's floored size
     * @throws dev.flux2.api.InvalidImageException if the first image has a side below 16 pixels
     */
    public static List<BufferedImage> prepareReferenceList(List<BufferedImage> images) {
        BufferedImage first = images.get(0);
        Size size = RequestRules.floorTo16(new Size(first.getWidth(), first.getHeight()), first, "reference image 0");
        List<BufferedImage> out = new ArrayList<>(images.size());
        for (BufferedImage image : images) {
            int w = image.getWidth();
            int h = image.getHeight();
            int left = Math.floorDiv(w - size.width(), 2);
            int top = Math.floorDiv(h - size.height(), 2);
            int[] rgb = PackedRgb.read(image);
            int[] cropped = new int[size.width() * size.height()];
            for (int y = 0; y < size.height(); y++) {
                for (int x = 0; x < size.width(); x++) {
                    int sx = left + x;
                    int sy = top + y;
                    if (sx >= 0 && sx < w && sy >= 0 && sy < h) {
                        cropped[y * size.width() + x] = rgb[sy * w + sx];
                    }
                }
            }
            out.add(PackedRgb.toImage(cropped, size.width(), size.height()));
        }
        return out;
    }
}
