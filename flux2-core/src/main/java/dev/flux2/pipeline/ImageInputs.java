package dev.flux2.pipeline;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InferenceException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.RequestRules;
import dev.flux2.api.Stage;
import dev.flux2.image.CropRegion;
import dev.flux2.image.ImageConversion;
import dev.flux2.image.ImagePreprocessor;
import dev.flux2.image.InpaintMask;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.MaskBlending;
import dev.flux2.math.PositionIds;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** Preprocesses a request's init and reference images and encodes them with the backend's VAE encoder. */
final class ImageInputs {
    /**
     * How to add an encoder: the pinned default bundle ships none, and any export of the same FLUX.2 VAE fits
     * (its latents are the decoder's); the backend may name one ({@link dev.flux2.spi.Flux2Backend#vaeEncoderSource}).
     */
    static final String VAE_ENCODER_FIX = "Add a VAE encoder of the same FLUX.2 VAE: CLI --component"
            + " vae-encoder=PATH, API Flux2Pipeline.builder().component(ModelRole.VAE_ENCODER, path)";

    private ImageInputs() {}

    /**
     * Checks that the model can take images and preprocesses them (pure Java, no backend call).
     *
     * @param request the request
     * @param model the model
     * @param encoderSource where a fitting VAE encoder can be found (the backend's), for the message
     * @return the prepared images
     * @throws InvalidRequestException when images are given but the bundle has no VAE encoder
     */
    static PreparedImages prepare(GenerationRequest request, ModelInfo model, Optional<String> encoderSource) {
        boolean hasInit = request.initImage().isPresent();
        List<BufferedImage> references = request.referenceImages();
        if ((hasInit || !references.isEmpty()) && !model.supportsImageInput()) {
            String given = hasInit ? "an init image was" : references.size() + " reference image(s) were";
            throw new InvalidRequestException(given + " given, but the model bundle '" + model.variant()
                    + "' has no VAE encoder, so it cannot take image input (text-to-image only). " + VAE_ENCODER_FIX
                    + encoderSource.map(source -> "; for example " + source).orElse(""));
        }
        BufferedImage init = null;
        float[] tokenMask = null;
        MaskCropOverlay cropOverlay = null;
        if (request.mask().isPresent() && request.paddingMaskCrop().isPresent()) {
            // padding_mask_crop: generate on the mask's crop region, fill-resized to the working size
            BufferedImage original =
                    ImagePreprocessor.capArea(request.initImage().get());
            int multiple = WorkingSize.PIXELS_PER_TOKEN;
            int w = request.width().orElse(original.getWidth() / multiple * multiple);
            int h = request.height().orElse(original.getHeight() / multiple * multiple);
            BufferedImage mask = request.mask().get();
            RequestRules.checkCropSize(mask, request.initImage().get());
            CropRegion region =
                    CropRegion.around(mask, w, h, request.paddingMaskCrop().getAsInt());
            init = ImagePreprocessor.prepareInitCrop(original, region, w, h);
            tokenMask = tokenMask(InpaintMask.binarized(mask, region, w, h), w, h);
            cropOverlay = new MaskCropOverlay(original, mask, region);
        } else if (hasInit) {
            init = prepareInit(request.initImage().get(), request.width(), request.height());
            if (request.mask().isPresent()) {
                int w = init.getWidth();
                int h = init.getHeight();
                tokenMask = tokenMask(InpaintMask.binarized(request.mask().get(), w, h), w, h);
            }
        }
        List<BufferedImage> prepared = new ArrayList<>(references.size());
        if (request.mask().isPresent() && references.size() > 1) {
            // INPAINT preprocesses a list of image_reference as one batch at the first one's size
            prepared.addAll(ImagePreprocessor.prepareReferenceList(references));
        } else {
            for (BufferedImage reference : references) {
                prepared.add(ImagePreprocessor.prepareReference(reference));
            }
        }
        return new PreparedImages(init, prepared, tokenMask, cropOverlay);
    }

    private static float[] tokenMask(float[] pixels, int w, int h) {
        return MaskBlending.tokenMask(pixels, w, h, w / WorkingSize.PIXELS_PER_TOKEN, h / WorkingSize.PIXELS_PER_TOKEN);
    }

    /**
     * Resizes the init image to the working size. With both sides given this is an exact resize; with one side
     * given the other comes from the image's own capped and floored size, so the latent always matches the working
     * size that {@link RequestResolver} derives by the same rule.
     */
    private static BufferedImage prepareInit(BufferedImage image, OptionalInt width, OptionalInt height) {
        if (width.isPresent() == height.isPresent()) {
            return ImagePreprocessor.prepareInit(image, width, height);
        }
        BufferedImage natural = ImagePreprocessor.prepareInit(image, OptionalInt.empty(), OptionalInt.empty());
        return ImagePreprocessor.prepareInit(
                image,
                OptionalInt.of(width.orElse(natural.getWidth())),
                OptionalInt.of(height.orElse(natural.getHeight())));
    }

    /**
     * Encodes the prepared images [stage VAE_ENCODE, attributed to image 0]. Does nothing without images.
     *
     * @param images the prepared images
     * @param size the working size the init latent must match
     * @param backend the backend
     * @param context the request's context
     * @return the latents, the packed reference tokens and their ids
     */
    static EncodedImages encode(
            PreparedImages images, WorkingSize size, Flux2Backend backend, GenerationContext context) {
        if (images.isEmpty()) {
            return EncodedImages.none();
        }
        int count = (images.hasInit() ? 1 : 0) + images.references().size();
        GenerationContext.StageSpan span = context.begin(Stage.VAE_ENCODE, 0, count);
        int done = 0;
        LatentGrid init = null;
        if (images.hasInit()) {
            init = encodeOne(images.init(), "init image", backend, context);
            requireGrid(init, size.gridWidth(), size.gridHeight(), "init image");
            span.advanced(++done);
        }
        List<float[]> tokens = new ArrayList<>();
        List<float[]> ids = new ArrayList<>();
        int firstReference = 0;
        if (images.hasMask()) {
            // INPAINT conditions on the clean init latent as the first reference (t = 10); image_reference follows.
            tokens.add(LatentLayout.pack(init));
            ids.add(PositionIds.reference(0, size.gridWidth(), size.gridHeight()));
            firstReference = 1;
        }
        for (int i = 0; i < images.references().size(); i++) {
            BufferedImage reference = images.references().get(i);
            String what = "reference image " + i;
            LatentGrid latent = encodeOne(reference, what, backend, context);
            int gridWidth = reference.getWidth() / WorkingSize.PIXELS_PER_TOKEN;
            int gridHeight = reference.getHeight() / WorkingSize.PIXELS_PER_TOKEN;
            requireGrid(latent, gridWidth, gridHeight, what);
            tokens.add(LatentLayout.pack(latent));
            ids.add(PositionIds.reference(firstReference + i, gridWidth, gridHeight));
            span.advanced(++done);
        }
        span.finish();
        return new EncodedImages(init, concat(tokens), concat(ids));
    }

    private static LatentGrid encodeOne(
            BufferedImage image, String what, Flux2Backend backend, GenerationContext context) {
        PixelTensor pixels = ImageConversion.toPixels(image);
        String where = "VAE encoding of the " + what;
        LatentGrid latent = context.call(where, () -> backend.encodeImage(pixels, context));
        FiniteCheck.require(latent.data(), latent.data().length, "the latent of the " + where);
        return latent;
    }

    private static void requireGrid(LatentGrid latent, int gridWidth, int gridHeight, String what) {
        if (latent.channels() != LatentGrid.CHANNELS || latent.width() != gridWidth || latent.height() != gridHeight) {
            throw new InferenceException("VAE encoding of the " + what + ": expected a latent of "
                    + LatentGrid.CHANNELS + " channels on a " + gridWidth + "x" + gridHeight + " grid (W/16 x H/16)"
                    + ", the backend returned " + latent.channels() + " channels on a " + latent.width() + "x"
                    + latent.height() + " grid");
        }
    }

    private static float[] concat(List<float[]> parts) {
        int length = 0;
        for (float[] part : parts) {
            length += part.length;
        }
        float[] all = new float[length];
        int offset = 0;
        for (float[] part : parts) {
            System.arraycopy(part, 0, all, offset, part.length);
            offset += part.length;
        }
        return all;
    }
}
