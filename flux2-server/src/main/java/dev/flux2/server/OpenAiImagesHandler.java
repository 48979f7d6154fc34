package dev.flux2.server;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
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
 * and the others references. An upload's queue slot is taken before its body is read ({@link QueueAnswers#admitAndRead});
 * the request is built by {@link OpenAiGeneration}. Also served without the {@code /v1} prefix ({@link ApiPaths}).
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
    private final BodyBudget budget;
    private final ServiceConfig config;
    private final ServerMetrics metrics;
    private final ImageStore store;
    private final boolean trueCfg;

    OpenAiImagesHandler(
            boolean edit,
            GenerationQueue queue,
            BodyBudget budget,
            ServiceConfig config,
            ServerMetrics metrics,
            ImageStore store,
            boolean trueCfg) {
        this.edit = edit;
        this.queue = queue;
        this.budget = budget;
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
        try (QueueAnswers.Admitted admitted = QueueAnswers.admitAndRead(
                queue, budget, request, response, callback, cap, config.bodyTimeout(), multipart)) {
            if (admitted == null) {
                return;
            }
            GenerationRequest generation;
            OpenAiImageRequest fields;
            try {
                ObjectNode root;
                ImageUploads uploads = null;
                if (multipart) {
                    List<Multipart.Part> parts = Multipart.parse(
                            admitted.body(),
                            Multipart.boundary(request.getHeaders().get(HttpHeader.CONTENT_TYPE)));
                    root = MultipartFields.of(parts);
                    uploads = ImageUploads.fromParts(parts);
                } else {
                    root = json(admitted.body());
                    if (edit) {
                        uploads = ImageUploads.fromJson(root);
                    }
                }
                fields = OpenAiImageRequest.parse(root, edit);
                checkModel(fields);
                checkPartialImages(fields);
                generation = OpenAiGeneration.request(fields, uploads, config.limits(), trueCfg);
            } catch (ApiError e) {
                admitted.close(); // before answering: the client's next request must find the slot free
                HttpExchanges.sendError(response, callback, e);
                return;
            }
            LOG.debug("{} prompt: {}", path(), fields.prompt());
            if (fields.stream()) {
                OpenAiImageStream.answer(
                        queue, metrics, admitted, generation, fields, edit, request, response, callback);
                return;
            }
            GenerationResult result =
                    QueueAnswers.run(queue, metrics, admitted, generation, request, response, callback);
            if (result == null) {
                return;
            }
            HttpExchanges.sendJson(response, callback, 200, answer(request, fields, result));
        }
    }

    /** Partial images exist only in a streamed answer (OpenAI's clients send them only with {@code stream}). */
    private static void checkPartialImages(OpenAiImageRequest fields) throws ApiError {
        if (!fields.stream() && fields.partialImages() > 0) {
            throw new ApiError(
                    400,
                    "'partial_images' " + fields.partialImages() + " needs a streamed answer: send 'stream': true,"
                            + " or 0 partial images for one JSON answer",
                    "partial_images",
                    "invalid_value");
        }
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

    private ObjectNode answer(Request request, OpenAiImageRequest f, GenerationResult result) {
        ObjectNode body = HttpExchanges.JSON.createObjectNode();
        body.put("created", System.currentTimeMillis() / 1000);
        ArrayNode data = body.putArray("data");
        boolean jpeg = f.outputFormat().equals("jpeg");
        for (GeneratedImage image : result.images()) {
            byte[] bytes = ImageEncoding.encode(image, f);
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
}
