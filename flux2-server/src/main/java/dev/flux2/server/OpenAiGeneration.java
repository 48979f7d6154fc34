package dev.flux2.server;

import dev.flux2.ImageFiles;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.io.OpenAiMask;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the fields of an OpenAI request ({@link OpenAiImageRequest}) and its images ({@link ImageUploads}) into a
 * {@link GenerationRequest}, every refusal naming the field it is about in {@code param}: the core's checks of a
 * value (its size rules, the limits) are run field by field on a request holding only that value, so that "width 100
 * must be a positive multiple of 16" answers {@code param: "size"} and a refused init image {@code param: "image"}.
 * An uploaded image is staged in a temporary file for the core's bounded image reader; messages name the upload
 * ({@code 'image[]' file 2}), never the temporary file.
 */
final class OpenAiGeneration {
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiGeneration.class);

    private OpenAiGeneration() {}

    /** A check of the core's that throws {@link InvalidRequestException}. */
    @FunctionalInterface
    private interface Check {
        void run();
    }

    private static void field(String param, Check check) throws ApiError {
        try {
            check.run();
        } catch (InvalidRequestException e) {
            throw ApiError.invalid(param, e.getMessage());
        }
    }

    /**
     * @param f the parsed fields
     * @param uploads the edit's images, or null for a generation
     * @param limits the server's limits
     * @param trueCfg whether the model has true classifier-free guidance
     * @return the request, checked against the limits
     * @throws ApiError (400) naming the field
     */
    static GenerationRequest request(
            OpenAiImageRequest f, ImageUploads uploads, GenerationLimits limits, boolean trueCfg) throws ApiError {
        field("prompt", () -> GenerationRequest.builder(f.prompt()).build());
        field(
                "n",
                () -> limits.checkRequest(
                        GenerationRequest.builder("").numImages(f.n()).build()));
        if (f.width() != null) {
            field(
                    "size",
                    () -> limits.checkRequest(GenerationRequest.builder("")
                            .size(f.width(), f.height())
                            .numImages(f.n())
                            .limits(limits)
                            .build()));
        }
        if (f.steps() != null) {
            field(
                    f.stepsField(),
                    () -> limits.checkRequest(
                            GenerationRequest.builder("").steps(f.steps()).build()));
        }
        if (f.guidance() != null) {
            field(
                    "guidance_scale",
                    () -> GenerationRequest.builder("").guidance(f.guidance()).build());
        }
        if (f.negativePrompt() != null) {
            if (!trueCfg) {
                throw ApiError.invalid(
                        "negative_prompt",
                        "'negative_prompt' needs a model with true classifier-free guidance (a base"
                                + " model); the served model is guidance-distilled");
            }
            field(
                    "negative_prompt",
                    () -> GenerationRequest.builder("")
                            .negativePrompt(f.negativePrompt())
                            .build());
        }
        GenerationRequest.Builder b =
                GenerationRequest.builder(f.prompt()).numImages(f.n()).limits(limits);
        if (f.width() != null) {
            b.size(f.width(), f.height());
        }
        if (f.seed() != null) {
            b.seed(f.seed());
        }
        if (f.steps() != null) {
            b.steps(f.steps());
        }
        if (f.guidance() != null) {
            b.guidance(f.guidance());
        }
        if (f.negativePrompt() != null) {
            b.negativePrompt(f.negativePrompt());
        }
        if (uploads != null) {
            addImages(b, f, uploads, limits);
        }
        GenerationRequest request;
        try {
            request = b.build();
            limits.checkRequest(request);
        } catch (InvalidRequestException e) {
            // What is left is about the images together (the count of references, an init image with this size).
            throw ApiError.invalid(uploads != null ? "image" : null, e.getMessage());
        }
        return request;
    }

    private static void addImages(
            GenerationRequest.Builder b, OpenAiImageRequest f, ImageUploads uploads, GenerationLimits limits)
            throws ApiError {
        boolean init = f.strength() != null || uploads.mask() != null;
        BufferedImage initImage = null;
        int references = 0;
        for (int i = 0; i < uploads.images().size(); i++) {
            ImageUploads.Upload upload = uploads.images().get(i);
            if (i == 0 && init) {
                BufferedImage image = read(upload, "init image", limits);
                initImage = image;
                field(
                        upload.field(),
                        () -> GenerationRequest.builder("").initImage(image).build());
                b.initImage(image);
            } else {
                int index = references++;
                BufferedImage image = read(upload, "reference image " + index, limits);
                field(
                        upload.field(),
                        () -> GenerationRequest.builder("")
                                .addReferenceImage(image, upload.label())
                                .build());
                b.addReferenceImage(image, upload.label());
            }
        }
        if (f.strength() != null) {
            BufferedImage image = initImage;
            field("strength", () -> {
                GenerationRequest.Builder probe =
                        GenerationRequest.builder("").initImage(image).strength(f.strength());
                if (f.steps() != null) {
                    probe.steps(f.steps());
                }
                probe.build();
            });
            b.strength(f.strength());
        }
        if (uploads.mask() != null) {
            BufferedImage mask = read(uploads.mask(), "mask", limits);
            if (mask.getWidth() != initImage.getWidth() || mask.getHeight() != initImage.getHeight()) {
                throw ApiError.invalid(
                        "mask",
                        "'mask' must have the size of the image: the image is " + initImage.getWidth() + "x"
                                + initImage.getHeight() + ", the mask is " + mask.getWidth() + "x" + mask.getHeight());
            }
            // OpenAI's mask (alpha 0 = edit) in FLUX.2's convention (white = repaint); an alpha mask without a fully
            // transparent pixel edits nothing and is refused there, naming the field.
            BufferedImage flux;
            try {
                flux = OpenAiMask.toFlux(mask);
            } catch (InvalidRequestException e) {
                throw ApiError.invalid("mask", e.getMessage());
            }
            BufferedImage image = initImage;
            field(
                    "mask",
                    () -> GenerationRequest.builder("")
                            .initImage(image)
                            .mask(flux)
                            .build());
            b.mask(flux);
        }
    }

    /** Reads one upload through the core's bounded reader; a refusal names the upload and its field. */
    private static BufferedImage read(ImageUploads.Upload upload, String role, GenerationLimits limits)
            throws ApiError {
        Path file = null;
        try {
            file = Files.createTempFile("flux2-upload-", ".img");
            Files.write(file, upload.bytes());
            String what = "uploaded " + upload.label() + " (" + role + ")";
            try {
                return ImageFiles.read(file, what, limits);
            } catch (InvalidRequestException e) {
                // The core names the file it read; the client knows the upload, not the staging file.
                String message = e.getMessage().replace(" " + file, "").replace(file.toString(), "the upload");
                throw ApiError.invalid(upload.field(), message);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage an uploaded image: " + e.getMessage(), e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOG.warn("cannot delete the staged upload {}: {}", file, e.toString());
                }
            }
        }
    }
}
