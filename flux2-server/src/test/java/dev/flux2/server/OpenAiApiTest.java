package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.GenerationRequest;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's Images API over loopback with a stand-in generator: the answer shapes, the fields reaching the request,
 * every error in OpenAI's shape, the API key and the metrics. {@code OpenAiClientsIT} runs real clients on a real
 * pipeline.
 */
class OpenAiApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(0)
                .modelName("flux2-klein-test")
                .requestTimeout(Duration.ofSeconds(30));
    }

    private HttpResponse<byte[]> send(
            ImageService s, String method, String path, String type, byte[] body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (type != null) {
            b.header("Content-Type", type);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> postJson(ImageService s, String path, String json, String... headers)
            throws Exception {
        return send(s, "POST", path, "application/json", json.getBytes(StandardCharsets.UTF_8), headers);
    }

    /** Asserts OpenAI's error shape and returns the error object. */
    private static JsonNode error(HttpResponse<byte[]> r, int status) throws Exception {
        assertEquals(status, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
        JsonNode e = JSON.readTree(r.body()).get("error");
        assertTrue(e != null && e.get("message").isTextual() && e.get("type").isTextual(), new String(r.body()));
        assertTrue(e.has("param") && e.has("code"), new String(r.body()));
        return e;
    }

    @Test
    void generationsAnswerB64JsonPngsOfTheRequestedSizeWithTheirSeeds() throws Exception {
        AtomicReference<GenerationRequest> seen = new AtomicReference<>();
        try (ImageService s = ImageService.start(
                (r, controls) -> {
                    seen.set(r);
                    return FakeImages.of(r);
                },
                config().build())) {
            HttpResponse<byte[]> r = postJson(
                    s,
                    "/v1/images/generations",
                    "{\"model\": \"dall-e-3\", \"prompt\": \"a fox\", \"n\": 2, \"size\": \"64x32\", \"seed\": 7,"
                            + " \"num_inference_steps\": 3, \"quality\": \"hd\", \"style\": \"vivid\", \"user\": \"u\"}");
            assertEquals(200, r.statusCode(), new String(r.body()));
            JsonNode body = JSON.readTree(r.body());
            assertTrue(body.get("created").asLong() > 1_700_000_000L);
            assertEquals("png", body.get("output_format").asText());
            assertEquals("64x32", body.get("size").asText());
            assertEquals("dall-e-3", body.get("model").asText(), "the requested model is reported back");
            assertEquals(2, body.get("data").size());
            for (int i = 0; i < 2; i++) {
                JsonNode item = body.get("data").get(i);
                assertEquals(7 + i, item.get("seed").asLong());
                BufferedImage png = ImageIO.read(new ByteArrayInputStream(
                        Base64.getDecoder().decode(item.get("b64_json").asText())));
                BufferedImage expected = FakeImages.image(64, 32, 7 + i);
                assertEquals(64, png.getWidth());
                assertEquals(32, png.getHeight());
                assertEquals(expected.getRGB(5, 9), png.getRGB(5, 9));
            }
            assertEquals(3, seen.get().steps().orElseThrow());
            assertEquals(2, seen.get().numImages());
        }
    }

    @Test
    void urlAnswersAreServedForABoundedTimeAndJpegIsEncoded() throws Exception {
        try (ImageService s = ImageService.start((r, controls) -> FakeImages.of(r), config().build())) {
            HttpResponse<byte[]> r = postJson(
                    s,
                    "/v1/images/generations",
                    "{\"prompt\": \"a fox\", \"size\": \"32x32\", \"seed\": 1, \"response_format\": \"url\","
                            + " \"output_format\": \"jpeg\", \"output_compression\": 95}");
            assertEquals(200, r.statusCode(), new String(r.body()));
            String url = JSON.readTree(r.body()).get("data").get(0).get("url").asText();
            assertTrue(url.startsWith("http://127.0.0.1:" + s.port() + "/v1/images/files/"), url);
            HttpResponse<byte[]> image = http.send(
                    HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, image.statusCode());
            assertEquals(
                    "image/jpeg", image.headers().firstValue("Content-Type").orElse(""));
            BufferedImage jpeg = ImageIO.read(new ByteArrayInputStream(image.body()));
            assertEquals(32, jpeg.getWidth());
            error(send(s, "GET", "/v1/images/files/00000000000000000000000000000000.png", null, null), 404);
        }
    }

    @Test
    void editsTakeMultipartImagesAsReferencesOrWithStrengthAsInitImage() throws Exception {
        AtomicReference<GenerationRequest> seen = new AtomicReference<>();
        try (ImageService s = ImageService.start(
                (r, controls) -> {
                    seen.set(r);
                    return FakeImages.of(r);
                },
                config().build())) {
            byte[] a = png(FakeImages.image(64, 64, 3));
            byte[] b = png(FakeImages.image(64, 128, 4));
            Multiparts m = new Multiparts()
                    .field("prompt", "make it blue")
                    .field("size", "32x32")
                    .field("seed", "5")
                    .file("image[]", "a.png", a)
                    .file("image[]", "b.png", b);
            HttpResponse<byte[]> r = send(s, "POST", "/v1/images/edits", m.contentType(), m.body());
            assertEquals(200, r.statusCode(), new String(r.body()));
            assertEquals(2, seen.get().referenceImages().size());
            assertEquals(128, seen.get().referenceImages().get(1).getHeight());
            assertTrue(seen.get().initImage().isEmpty());

            Multiparts init = new Multiparts()
                    .field("prompt", "make it blue")
                    .field("strength", "0.5")
                    .file("image", "a.png", a);
            r = send(s, "POST", "/v1/images/edits", init.contentType(), init.body());
            assertEquals(200, r.statusCode(), new String(r.body()));
            assertEquals(64, seen.get().initImage().orElseThrow().getWidth());
            assertEquals(0.5, seen.get().strength().orElseThrow(), 1e-9);

            // JSON with a data URL is the same edit.
            String dataUrl = "data:image/png;base64," + Base64.getEncoder().encodeToString(b);
            r = postJson(
                    s, "/v1/images/edits", "{\"prompt\": \"p\", \"images\": [{\"image_url\": \"" + dataUrl + "\"}]}");
            assertEquals(200, r.statusCode(), new String(r.body()));
            assertEquals(1, seen.get().referenceImages().size());

            Multiparts tiny =
                    new Multiparts().field("prompt", "p").file("image", "t.png", png(FakeImages.image(32, 32, 1)));
            JsonNode small = error(send(s, "POST", "/v1/images/edits", tiny.contentType(), tiny.body()), 400);
            assertEquals("image", small.get("param").asText());
            assertTrue(
                    small.get("message").asText().contains("'image'")
                            && !small.get("message").asText().contains("/tmp")
                            && !small.get("message").asText().contains("flux2-upload"),
                    small.toString());

            Multiparts masked = new Multiparts()
                    .field("prompt", "p")
                    .file("image", "a.png", a)
                    .file("mask", "m.png", b);
            JsonNode e = error(send(s, "POST", "/v1/images/edits", masked.contentType(), masked.body()), 400);
            assertEquals("mask", e.get("param").asText());
            assertTrue(
                    e.get("message").asText().contains("64x64")
                            && e.get("message").asText().contains("64x128"),
                    e.toString());

            // OpenAI's mask: alpha 0 (left half) is the area to edit; FLUX.2 gets white there, black elsewhere.
            BufferedImage rgba = new BufferedImage(64, 64, BufferedImage.TYPE_INT_ARGB);
            for (int y = 0; y < 64; y++) {
                for (int x = 0; x < 64; x++) {
                    rgba.setRGB(x, y, x < 32 ? 0x00FF0000 : 0xFF00FF00);
                }
            }
            Multiparts inpaint = new Multiparts()
                    .field("prompt", "p")
                    .file("image", "a.png", a)
                    .file("mask", "m.png", png(rgba));
            r = send(s, "POST", "/v1/images/edits", inpaint.contentType(), inpaint.body());
            assertEquals(200, r.statusCode(), new String(r.body()));
            BufferedImage seenMask = seen.get().mask().orElseThrow();
            assertEquals(64, seen.get().initImage().orElseThrow().getWidth());
            for (int y = 0; y < 64; y += 7) {
                for (int x = 0; x < 64; x += 5) {
                    assertEquals(x < 32 ? 0xFFFFFF : 0, seenMask.getRGB(x, y) & 0xFFFFFF, x + "," + y);
                }
            }
            // Issue #33: an opaque mask (white, with alpha) was called "all black"; in OpenAI's convention it
            // edits nothing, and says so.
            BufferedImage opaqueWhite = new BufferedImage(64, 64, BufferedImage.TYPE_INT_ARGB);
            for (int y = 0; y < 64; y++) {
                for (int x = 0; x < 64; x++) {
                    opaqueWhite.setRGB(x, y, 0xFFFFFFFF);
                }
            }
            Multiparts opaque = new Multiparts()
                    .field("prompt", "p")
                    .file("image", "a.png", a)
                    .file("mask", "m.png", png(opaqueWhite));
            e = error(send(s, "POST", "/v1/images/edits", opaque.contentType(), opaque.body()), 400);
            assertEquals("mask", e.get("param").asText(), e.toString());
            assertTrue(e.get("message").asText().contains("no fully transparent pixel"), e.toString());
            assertFalse(e.get("message").asText().contains("all black"), e.toString());
            // Issue #33: a truncated init image sent with a mask was named "the mask".
            Multiparts truncated = new Multiparts()
                    .field("prompt", "p")
                    .file("image", "a.png", java.util.Arrays.copyOf(a, a.length / 2))
                    .file("mask", "m.png", png(rgba));
            e = error(send(s, "POST", "/v1/images/edits", truncated.contentType(), truncated.body()), 400);
            assertEquals("image", e.get("param").asText(), e.toString());
            assertTrue(e.get("message").asText().contains("uploaded 'image' (init image)"), e.toString());
            assertFalse(e.get("message").asText().contains("the mask"), e.toString());
            Multiparts imageless = new Multiparts().field("prompt", "p");
            e = error(send(s, "POST", "/v1/images/edits", imageless.contentType(), imageless.body()), 400);
            assertEquals("image", e.get("param").asText());
            e = error(
                    send(
                            s,
                            "POST",
                            "/v1/images/edits",
                            "multipart/form-data; boundary=zz",
                            "--zz\r\nbroken".getBytes()),
                    400);
            assertTrue(e.get("message").asText().contains("multipart"), e.toString());
            e = error(
                    postJson(
                            s, "/v1/images/edits", "{\"prompt\": \"p\", \"image\": \"https://example.invalid/a.png\"}"),
                    400);
            assertTrue(e.get("message").asText().contains("data URL"), e.toString());
        }
    }

    @Test
    void everyRefusalIsInOpenAisShapeNamingTheField() throws Exception {
        try (ImageService s = ImageService.start(
                (r, controls) -> FakeImages.of(r),
                config().maxBodyBytes(4096).strictModel(true).build())) {
            String g = "/v1/images/generations";
            assertEquals(
                    "prompt",
                    error(postJson(s, g, "{\"n\": 1}"), 400).get("param").asText());
            assertEquals(
                    "n",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"n\": 11}"), 400)
                            .get("param")
                            .asText());
            assertEquals(
                    "size",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"size\": \"big\"}"), 400)
                            .get("param")
                            .asText());
            JsonNode webp = error(postJson(s, g, "{\"prompt\": \"p\", \"output_format\": \"webp\"}"), 400);
            assertTrue(webp.get("message").asText().contains("webp"), webp.toString());
            assertEquals(
                    "response_format",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"response_format\": \"gif\"}"), 400)
                            .get("param")
                            .asText());
            assertEquals(
                    "seed",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"seed\": \"7\"}"), 400)
                            .get("param")
                            .asText());
            assertEquals(
                    "negative_prompt",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"negative_prompt\": \"x\"}"), 400)
                            .get("param")
                            .asText());
            assertEquals(
                    "colour",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"colour\": 1}"), 400)
                            .get("param")
                            .asText());
            assertEquals(
                    "model_not_found",
                    error(postJson(s, g, "{\"prompt\": \"p\", \"model\": \"dall-e-3\"}"), 404)
                            .get("code")
                            .asText());
            assertTrue(error(postJson(s, g, "{\"prompt\": \"p\", \"size\": \"100x100\"}"), 400)
                    .get("message")
                    .asText()
                    .contains("multiple of 16"));
            error(postJson(s, g, "not json"), 400);
            error(send(s, "GET", g, null, null), 405);
            error(send(s, "GET", "/v2/nothing", null, null), 404);
            error(postJson(s, g, "{\"prompt\": \"" + "x".repeat(5000) + "\"}"), 413);
            error(send(s, "POST", g, "text/plain", "{\"prompt\": \"p\"}".getBytes()), 415);
            error(send(s, "POST", g, "multipart/form-data; boundary=x", "--x--".getBytes()), 415);
        }
    }

    @Test
    void aFullQueueIs429InOpenAisShape() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (ImageService s = ImageService.start(
                (r, controls) -> {
                    started.countDown();
                    ImageServiceTest.await(release);
                    return FakeImages.of(r);
                },
                config().build())) {
            CompletableFuture<HttpResponse<byte[]>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return postJson(s, "/v1/images/generations", "{\"prompt\": \"one\"}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertTrue(started.await(10, TimeUnit.SECONDS));
            HttpResponse<byte[]> busy = postJson(s, "/v1/images/generations", "{\"prompt\": \"two\"}");
            assertEquals("rate_limit_exceeded", error(busy, 429).get("code").asText());
            assertEquals("1", busy.headers().firstValue("Retry-After").orElse(""));
            release.countDown();
            assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
        }
    }

    @Test
    void aGenerationWhoseClientHungUpIsCancelled() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        try (ImageService s = ImageService.start(
                (r, controls) -> {
                    started.countDown();
                    dev.flux2.api.CancellationToken token =
                            controls.cancellation().orElseThrow();
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (!token.isCancelled() && System.nanoTime() < deadline) {
                        ImageServiceTest.sleep(5);
                    }
                    if (token.isCancelled()) {
                        cancelled.countDown();
                    }
                    throw new dev.flux2.api.GenerationCancelledException("cancelled at step 1/4");
                },
                config().build())) {
            byte[] body = "{\"prompt\": \"fox\"}".getBytes(StandardCharsets.UTF_8);
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", s.port())) {
                socket.getOutputStream()
                        .write(("POST /v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type:"
                                        + " application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().write(body);
                socket.getOutputStream().flush();
                assertTrue(started.await(10, TimeUnit.SECONDS), "the generation started");
            }
            assertTrue(cancelled.await(10, TimeUnit.SECONDS), "the generation saw the cancellation");
            ImageServiceTest.waitFor(() -> ImageServiceTest.healthValue(new ServiceClient(s.port()), "abandoned") == 1);
        }
    }

    @Test
    void theApiKeyIsRequiredExceptForHealth() throws Exception {
        try (ImageService s = ImageService.start(
                (r, controls) -> FakeImages.of(r),
                config().apiKey("sk-local-123").build())) {
            String g = "/v1/images/generations";
            JsonNode none = error(postJson(s, g, "{\"prompt\": \"p\"}"), 401);
            assertEquals("invalid_api_key", none.get("code").asText());
            error(postJson(s, g, "{\"prompt\": \"p\"}", "Authorization", "Bearer sk-local-124"), 401);
            error(send(s, "GET", "/v1/models", null, null), 401);
            assertEquals(
                    200,
                    postJson(s, g, "{\"prompt\": \"p\"}", "Authorization", "Bearer sk-local-123")
                            .statusCode());
            assertEquals(200, send(s, "GET", "/health", null, null).statusCode());
            HttpResponse<byte[]> models =
                    send(s, "GET", "/v1/models", null, null, "Authorization", "Bearer sk-local-123");
            JsonNode list = JSON.readTree(models.body());
            assertEquals("list", list.get("object").asText());
            assertEquals("flux2-klein-test", list.get("data").get(0).get("id").asText());
            assertEquals("model", list.get("data").get(0).get("object").asText());
        }
    }

    @Test
    void corsIsOffUnlessAnOriginIsGiven() throws Exception {
        String g = "/v1/images/generations";
        try (ImageService s = ImageService.start((r, controls) -> FakeImages.of(r), config().build())) {
            assertEquals(
                    "forbidden_origin",
                    error(postJson(s, g, "{\"prompt\": \"p\"}", "Origin", "https://app.example"), 403)
                            .get("code")
                            .asText());
        }
        try (ImageService s = ImageService.start(
                (r, controls) -> FakeImages.of(r),
                config().corsOrigin("https://app.example").build())) {
            HttpResponse<byte[]> pre = send(
                    s,
                    "OPTIONS",
                    g,
                    null,
                    null,
                    "Origin",
                    "https://app.example",
                    "Access-Control-Request-Method",
                    "POST");
            assertEquals(204, pre.statusCode());
            assertEquals(
                    "https://app.example",
                    pre.headers().firstValue("Access-Control-Allow-Origin").orElse(""));
            HttpResponse<byte[]> r = postJson(s, g, "{\"prompt\": \"p\"}", "Origin", "https://app.example");
            assertEquals(200, r.statusCode());
            assertEquals(
                    "https://app.example",
                    r.headers().firstValue("Access-Control-Allow-Origin").orElse(""));
            error(postJson(s, g, "{\"prompt\": \"p\"}", "Origin", "https://evil.example"), 403);
        }
    }

    @Test
    void metricsCountRequestsImagesAndStagesInPrometheusFormat() throws Exception {
        try (ImageService s = ImageService.start((r, controls) -> FakeImages.of(r), config().build())) {
            postJson(s, "/v1/images/generations", "{\"prompt\": \"p\", \"n\": 3, \"size\": \"16x16\"}");
            postJson(s, "/v1/images/generations", "{}");
            HttpResponse<byte[]> m = send(s, "GET", "/metrics", null, null);
            assertEquals(200, m.statusCode());
            String text = new String(m.body(), StandardCharsets.UTF_8);
            assertTrue(text.contains("flux2_images_generated_total 3.0"), text);
            assertTrue(
                    text.contains("flux2_http_requests_total{route=\"/v1/images/generations\",status=\"200\"} 1.0"),
                    text);
            assertTrue(
                    text.contains("flux2_http_requests_total{route=\"/v1/images/generations\",status=\"400\"} 1.0"),
                    text);
            assertTrue(text.contains("flux2_generation_stage_seconds_count{stage=\"denoise\"} 1"), text);
            assertTrue(text.contains("flux2_queue_running 0.0"), text);
        }
    }

    @Test
    void theShortcutStaysAPngBody() throws Exception {
        try (ImageService s = ImageService.start((r, controls) -> FakeImages.of(r), config().build())) {
            HttpResponse<byte[]> r = postJson(s, "/v1/images", "{\"prompt\": \"p\", \"size\": \"16x16\", \"seed\": 2}");
            assertEquals(200, r.statusCode());
            assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, java.util.Arrays.copyOf(r.body(), 4));
        }
    }

    static byte[] png(BufferedImage image) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }

    /** A multipart/form-data body, written by hand as a browser would. */
    static final class Multiparts {
        private final String boundary = "----flux2test" + Long.toHexString(System.nanoTime());
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Multiparts field(String name, String value) {
            write("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + value
                    + "\r\n");
            return this;
        }

        Multiparts file(String name, String filename, byte[] bytes) {
            write("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + filename
                    + "\"\r\nContent-Type: image/png\r\n\r\n");
            out.writeBytes(bytes);
            write("\r\n");
            return this;
        }

        String contentType() {
            return "multipart/form-data; boundary=" + boundary;
        }

        byte[] body() {
            ByteArrayOutputStream copy = new ByteArrayOutputStream();
            copy.writeBytes(out.toByteArray());
            copy.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
            return copy.toByteArray();
        }

        private void write(String s) {
            out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        }
    }
}
