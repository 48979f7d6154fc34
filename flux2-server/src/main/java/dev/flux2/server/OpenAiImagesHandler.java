package dev.flux2.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.ImageFiles;
import dev.flux2.OpenAiMask;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.PngFiles;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenAI's {@code POST /v1/images/generations} (JSON) and {@code POST /v1/images/edits} (multipart or JSON with data
 * URLs): the fields of {@link OpenAiImageRequest}, the images of {@link ImageUploads}; answered
 * {@code {"created", "data": [{"b64_json" | "url", "seed"}], "output_format", "size", "model"}}, errors in OpenAI's
 * shape. The edit's images are FLUX.2 reference images; with {@code strength} the first one is the img2img init image
 * and the others references.
 */
final class OpenAiImagesHandler implements Route {
    static final String GENERATIONS = "/v1/images/generations";
    static final String EDITS = "/v1/images/edits";
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiImagesHandler.class);
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final boolean edit;
    private final GenerationQueue queue;
    private final ServiceConfig config;
    private final ServerMetrics metrics;
    private final ImageStore store;
    private final boolean trueCfg;

    OpenAiImagesHandler(
            boolean edit,
            GenerationQueue queue,
            ServiceConfig config,
            ServerMetrics metrics,
            ImageStore store,
            boolean trueCfg) {
        this.edit = edit;
        this.queue = queue;
        this.config = config;
        this.metrics = metrics;
        this.store = store;
        this.trueCfg = trueCfg;
    }

    private String path() {
        return edit ? EDITS : GENERATIONS;
    }

    @Override
    public void handle(Request request, Response response, Callback callback) throws IOException {
        if (!"POST".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "POST");
            HttpExchanges.sendError(response, callback, 405, path() + " accepts POST only");
            return;
        }
        String type = MediaTypes.of(request);
        boolean multipart = type.equals(MediaTypes.MULTIPART);
        if (multipart && !edit) {
            HttpExchanges.sendError(
                    response, callback, 415, GENERATIONS + " takes application/json; multipart is for " + EDITS);
            return;
        }
        int cap = multipart ? config.maxUploadBytes() : config.maxBodyBytes();
        byte[] body = QueueAnswers.readBody(request, response, callback, cap, config.bodyTimeout());
        if (body == null) {
            return;
        }
        GenerationRequest generation;
        OpenAiImageRequest fields;
        try {
            ObjectNode root;
            ImageUploads uploads = null;
            if (multipart) {
                List<Multipart.Part> parts = Multipart.parse(
                        body, Multipart.boundary(request.getHeaders().get(HttpHeader.CONTENT_TYPE)));
                root = fieldsOf(parts);
                uploads = ImageUploads.fromParts(parts);
            } else {
                root = json(body);
                if (edit) {
                    uploads = ImageUploads.fromJson(root);
                }
            }
            fields = OpenAiImageRequest.parse(root, edit);
            checkModel(fields);
            generation = toRequest(fields, uploads);
            config.limits().checkRequest(generation);
        } catch (ApiError e) {
            HttpExchanges.sendError(response, callback, e);
            return;
        } catch (InvalidRequestException e) {
            HttpExchanges.sendError(response, callback, 400, e.getMessage());
            return;
        }
        LOG.debug("{} prompt: {}", path(), fields.prompt());
        GenerationResult result = QueueAnswers.run(queue, metrics, generation, request, response, callback);
        if (result == null) {
            return;
        }
        HttpExchanges.sendJson(response, callback, 200, answer(request, fields, result));
    }

    private static ObjectNode json(byte[] body) throws ApiError {
        Utf8.check(body, "the request body");
        JsonNode root;
        try {
            root = STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw new ApiError(400, "body must be a JSON object: " + e.getOriginalMessage(), null, "invalid_json");
        } catch (IOException e) {
            throw new ApiError(400, "body cannot be read: " + e.getMessage(), null, "invalid_json");
        }
        if (root == null || !root.isObject()) {
            throw new ApiError(400, "body must be a JSON object like {\"prompt\": \"...\"}", null, "invalid_json");
        }
        return (ObjectNode) root;
    }

    /** Multipart text fields as a JSON object, numbers converted, so one parser reads both forms. */
    private static ObjectNode fieldsOf(List<Multipart.Part> parts) throws ApiError {
        ObjectNode root = HttpExchanges.JSON.createObjectNode();
        for (Multipart.Part p : parts) {
            if (p.isFile() || ImageUploads.FIELDS.contains(p.name())) {
                continue; // files, and the image fields' text parts (refused by ImageUploads, naming the field)
            }
            Utf8.check(p.body(), "the multipart field '" + p.name() + "'");
            if (root.has(p.name())) {
                throw ApiError.invalid(p.name(), "the multipart field '" + p.name() + "' is given twice");
            }
            String text = p.text();
            if (OpenAiImageRequest.NUMERIC.contains(p.name())) {
                try {
                    JsonNode number = HttpExchanges.JSON.readTree(text.strip());
                    if (number == null || !number.isNumber()) {
                        throw ApiError.invalid(
                                p.name(),
                                "'" + p.name() + "' must be a number, got '" + OpenAiImageRequest.shortened(text)
                                        + "'");
                    }
                    root.set(p.name(), number);
                } catch (JsonProcessingException e) {
                    throw ApiError.invalid(
                            p.name(),
                            "'" + p.name() + "' must be a number, got '" + OpenAiImageRequest.shortened(text) + "'");
                }
            } else {
                root.put(p.name(), text);
            }
        }
        return root;
    }

    private void checkModel(OpenAiImageRequest fields) throws ApiError {
        if (config.strictModel() && fields.model() != null && !fields.model().equals(config.modelName())) {
            throw new ApiError(
                    404,
                    "the model '" + OpenAiImageRequest.shortened(fields.model()) + "' does not exist here; this server"
                            + " serves '" + config.modelName() + "'",
                    "model",
                    "model_not_found");
        }
    }

    private GenerationRequest toRequest(OpenAiImageRequest f, ImageUploads uploads) throws ApiError {
        GenerationRequest.Builder b = GenerationRequest.builder(f.prompt()).numImages(f.n());
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
            if (!trueCfg) {
                throw ApiError.invalid(
                        "negative_prompt",
                        "'negative_prompt' needs a model with true classifier-free guidance (a base"
                                + " model); the served model is guidance-distilled");
            }
            b.negativePrompt(f.negativePrompt());
        }
        b.limits(config.limits());
        if (uploads == null) {
            return b.build();
        }
        List<Path> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try {
            // The core reads and bounds the files (size, pixels, truncation), naming the limit; the message names
            // the upload, not the staging file.
            try {
                int references = 0;
                for (int i = 0; i < uploads.images().size(); i++) {
                    Path file = Files.createTempFile("flux2-upload-", ".img");
                    files.add(file);
                    names.add("uploaded image " + (i + 1));
                    Files.write(file, uploads.images().get(i));
                    if (i == 0 && (f.strength() != null || uploads.mask() != null)) {
                        b.initImage(ImageFiles.read(file, "init image", config.limits()));
                        if (f.strength() != null) {
                            b.strength(f.strength());
                        }
                    } else {
                        b.addReferenceImage(
                                ImageFiles.read(file, "reference image " + references++, config.limits()),
                                file.toString());
                    }
                }
                if (uploads.mask() != null) {
                    Path maskFile = Files.createTempFile("flux2-upload-", ".img");
                    files.add(maskFile);
                    names.add("the mask");
                    Files.write(maskFile, uploads.mask());
                    b.mask(ImageFiles.read(maskFile, "mask", config.limits()));
                }
                return withFluxMask(b.build());
            } catch (InvalidRequestException e) {
                String message = e.getMessage();
                // Each staging file by its own role: a refusal while reading an image before the mask was staged
                // named the image "the mask" (issue #33).
                for (int i = 0; i < files.size(); i++) {
                    message = message.replace(files.get(i).toString(), names.get(i));
                }
                throw ApiError.invalid(message.startsWith("the mask") ? "mask" : "image", message);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage an uploaded image: " + e.getMessage(), e);
        } finally {
            for (Path file : files) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    LOG.warn("cannot delete the staged upload {}: {}", file, e.toString());
                }
            }
        }
    }

    /** OpenAI's mask (same size as the image, alpha 0 = edit) in FLUX.2's convention (white = repaint). */
    private static GenerationRequest withFluxMask(GenerationRequest request) throws ApiError {
        if (request.mask().isEmpty()) {
            return request;
        }
        java.awt.image.BufferedImage mask = request.mask().get();
        java.awt.image.BufferedImage image = request.initImage().orElseThrow();
        if (mask.getWidth() != image.getWidth() || mask.getHeight() != image.getHeight()) {
            throw ApiError.invalid(
                    "mask",
                    "'mask' must have the size of the image: the image is " + image.getWidth() + "x" + image.getHeight()
                            + ", the mask is " + mask.getWidth() + "x" + mask.getHeight());
        }
        try {
            return request.toBuilder().mask(OpenAiMask.toFlux(mask)).build();
        } catch (InvalidRequestException e) {
            throw ApiError.invalid("mask", e.getMessage());
        }
    }

    private ObjectNode answer(Request request, OpenAiImageRequest f, GenerationResult result) {
        ObjectNode body = HttpExchanges.JSON.createObjectNode();
        body.put("created", System.currentTimeMillis() / 1000);
        ArrayNode data = body.putArray("data");
        boolean jpeg = f.outputFormat().equals("jpeg");
        for (GeneratedImage image : result.images()) {
            byte[] bytes = jpeg ? jpeg(image.image(), f.outputCompression()) : PngFiles.encode(image);
            ObjectNode item = data.addObject();
            if (f.responseFormat().equals("url")) {
                String path = store.put(bytes, jpeg ? "jpg" : "png", jpeg ? "image/jpeg" : "image/png");
                item.put("url", baseUrl(request) + path);
            } else {
                item.put("b64_json", Base64.getEncoder().encodeToString(bytes));
            }
            image.metadata().seed().ifPresent(s -> item.put("seed", s));
        }
        GeneratedImage first = result.first();
        body.put("output_format", f.outputFormat());
        body.put("size", first.metadata().width() + "x" + first.metadata().height());
        body.put("model", f.model() != null ? f.model() : config.modelName());
        return body;
    }

    private static String baseUrl(Request request) {
        String host = request.getHeaders().get(HttpHeader.HOST);
        if (host == null) {
            host = Request.getServerName(request) + ":" + Request.getServerPort(request);
        }
        return request.getHttpURI().getScheme().toLowerCase(Locale.ROOT) + "://" + host;
    }

    private static byte[] jpeg(BufferedImage image, int quality) {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality / 100f);
            BufferedImage rgb = image;
            if (image.getType() != BufferedImage.TYPE_INT_RGB && image.getType() != BufferedImage.TYPE_3BYTE_BGR) {
                rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_RGB);
                rgb.getGraphics().drawImage(image, 0, 0, null);
            }
            writer.write(null, new IIOImage(rgb, null, null), param);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writer.dispose();
        }
        return out.toByteArray();
    }
}
