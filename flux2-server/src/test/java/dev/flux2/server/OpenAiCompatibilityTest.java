package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.GenerationRequest;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What real OpenAI clients send and expect, issue #33: the API without the {@code /v1} prefix (Spring AI's
 * {@code OpenAiImageModel} on openai-java, given {@code http://localhost:8080}), OpenAI's streaming fields at their
 * default values, {@code param} naming the field of a size or image refusal, multipart fields given twice or holding
 * two numbers, base64 refused naming its field, and OpenAI's error shape on every error, Jetty's own included.
 */
class OpenAiCompatibilityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final AtomicReference<GenerationRequest> seen = new AtomicReference<>();
    private ImageService service;

    @BeforeEach
    void start() {
        service = ImageService.start(
                (r, controls) -> {
                    seen.set(r);
                    return FakeImages.of(r);
                },
                ServiceConfig.builder()
                        .port(0)
                        .modelName("flux2-klein-test")
                        .limits(dev.flux2.api.GenerationLimits.builder()
                                .maxSide(512)
                                .build())
                        .requestTimeout(Duration.ofSeconds(30))
                        .build());
    }

    @AfterEach
    void stop() {
        service.close();
    }

    private HttpResponse<byte[]> send(String method, String path, String type, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (type != null) {
            b.header("Content-Type", type);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> postJson(String path, String json) throws Exception {
        return send("POST", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<byte[]> postMultipart(String path, OpenAiApiTest.Multiparts m) throws Exception {
        return send("POST", path, m.contentType(), m.body());
    }

    /** Asserts OpenAI's error shape, the status and the param; returns the error object. */
    private static JsonNode error(HttpResponse<byte[]> r, int status, String param) throws Exception {
        String text = new String(r.body(), StandardCharsets.UTF_8);
        assertEquals(status, r.statusCode(), text);
        assertTrue(
                r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"),
                "content type of " + text);
        JsonNode e = JSON.readTree(r.body()).get("error");
        assertTrue(e != null && e.get("message").isTextual() && e.get("type").isTextual(), text);
        assertTrue(e.has("param") && e.has("code"), text);
        if (param == null) {
            assertTrue(e.get("param").isNull(), text);
        } else {
            assertEquals(param, e.get("param").asText(), text);
        }
        return e;
    }

    private static byte[] png() throws Exception {
        return OpenAiApiTest.png(FakeImages.image(64, 64, 3));
    }

    @Test
    void theApiIsServedWithAndWithoutTheV1Prefix() throws Exception {
        for (String prefix : new String[] {"/v1", ""}) {
            HttpResponse<byte[]> g = postJson(
                    prefix + "/images/generations", "{\"prompt\": \"a fox\", \"size\": \"64x32\", \"seed\": 5}");
            assertEquals(200, g.statusCode(), prefix + ": " + new String(g.body(), StandardCharsets.UTF_8));
            assertEquals(
                    5, JSON.readTree(g.body()).get("data").get(0).get("seed").asLong());

            HttpResponse<byte[]> e = postMultipart(
                    prefix + "/images/edits",
                    new OpenAiApiTest.Multiparts().field("prompt", "p").file("image", "a.png", png()));
            assertEquals(200, e.statusCode(), prefix + ": " + new String(e.body(), StandardCharsets.UTF_8));
            assertEquals(1, seen.get().referenceImages().size());

            HttpResponse<byte[]> models = send("GET", prefix + "/models", null, null);
            assertEquals(200, models.statusCode());
            assertEquals(
                    "flux2-klein-test",
                    JSON.readTree(models.body()).get("data").get(0).get("id").asText());
            assertEquals(
                    200,
                    send("GET", prefix + "/models/flux2-klein-test", null, null).statusCode());
            error(send("GET", prefix + "/models/dall-e-3", null, null), 404, "model");

            HttpResponse<byte[]> url = postJson(
                    prefix + "/images/generations",
                    "{\"prompt\": \"a fox\", \"size\": \"32x32\", \"response_format\": \"url\"}");
            String stored = URI.create(JSON.readTree(url.body())
                            .get("data")
                            .get(0)
                            .get("url")
                            .asText())
                    .getPath();
            String unprefixed = stored.substring("/v1".length());
            assertEquals(
                    200,
                    send("GET", prefix.isEmpty() ? unprefixed : stored, null, null)
                            .statusCode());

            HttpResponse<byte[]> shortcut = postJson(prefix + "/images", "{\"prompt\": \"x\", \"size\": \"32x32\"}");
            assertEquals(200, shortcut.statusCode());
            assertEquals(
                    "image/png", shortcut.headers().firstValue("Content-Type").orElse(""));
        }
        // Only the OpenAI resources get the second form; a path that merely starts alike is unknown.
        error(postJson("/imagesx/generations", "{\"prompt\": \"x\"}"), 404, null);
        error(send("GET", "/v1/health", null, null), 404, null);
    }

    @Test
    void streamFalseAndZeroPartialImagesAreAcceptedStreamTrueStreams() throws Exception {
        HttpResponse<byte[]> r = postJson(
                "/v1/images/generations",
                "{\"prompt\": \"a fox\", \"size\": \"32x32\", \"stream\": false, \"partial_images\": 0}");
        assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
        HttpResponse<byte[]> edit = postMultipart(
                "/images/edits",
                new OpenAiApiTest.Multiparts()
                        .field("prompt", "p")
                        .field("stream", "false")
                        .field("partial_images", "0")
                        .file("image[]", "a.png", png()));
        assertEquals(200, edit.statusCode(), new String(edit.body(), StandardCharsets.UTF_8));

        // stream: true streams (OpenAiStreamingTest has the events in detail), JSON and multipart alike
        HttpResponse<byte[]> stream = postJson("/v1/images/generations", "{\"prompt\": \"a fox\", \"stream\": true}");
        assertEquals(200, stream.statusCode());
        assertTrue(stream.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        assertTrue(new String(stream.body(), StandardCharsets.UTF_8).startsWith("event: image_generation.completed\n"));
        HttpResponse<byte[]> multipartStream = postMultipart(
                "/v1/images/edits",
                new OpenAiApiTest.Multiparts()
                        .field("prompt", "p")
                        .field("stream", "true")
                        .field("partial_images", "2")
                        .file("image", "a.png", png()));
        assertEquals(200, multipartStream.statusCode());
        assertTrue(
                new String(multipartStream.body(), StandardCharsets.UTF_8).contains("event: image_edit.completed\n"));
        // partial images without a stream have nowhere to go
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"partial_images\": 2}"), 400, "partial_images");
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"partial_images\": 4}"), 400, "partial_images");
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"stream\": \"no\"}"), 400, "stream");
        JsonNode yes = error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .field("stream", "yes")
                                .file("image", "a.png", png())),
                400,
                "stream");
        assertTrue(yes.get("message").asText().contains("true or false"), yes.toString());
    }

    @Test
    void sizeRefusalsNameSize() throws Exception {
        for (String size : new String[] {"100x64", "1024x64", "0x64"}) {
            JsonNode e = error(
                    postJson("/v1/images/generations", "{\"prompt\": \"a\", \"size\": \"" + size + "\"}"), 400, "size");
            assertTrue(e.get("message").asText().contains(size.substring(0, size.indexOf('x'))), e.toString());
        }
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"size\": \"big\"}"), 400, "size");
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"steps\": 0}"), 400, "steps");
        error(
                postJson("/v1/images/generations", "{\"prompt\": \"a\", \"num_inference_steps\": 0}"),
                400,
                "num_inference_steps");
        error(postJson("/v1/images/generations", "{\"prompt\": \"a\", \"guidance_scale\": -1}"), 400, "guidance_scale");
        // An init image too small for the pipeline names 'image'; a strength out of range names 'strength'.
        error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .field("strength", "0.5")
                                .file("image", "a.png", OpenAiApiTest.png(FakeImages.image(8, 8, 1)))),
                400,
                "image");
        error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .field("strength", "1.5")
                                .file("image", "a.png", png())),
                400,
                "strength");
    }

    @Test
    void multipartFieldsGivenTwiceOrHoldingTwoNumbersAreRefusedNamingTheField() throws Exception {
        byte[] mask = OpenAiApiTest.png(FakeImages.image(64, 64, 9));
        JsonNode twoMasks = error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .file("image", "a.png", png())
                                .file("mask", "m1.png", mask)
                                .file("mask", "m2.png", mask)),
                400,
                "mask");
        assertTrue(twoMasks.get("message").asText().contains("twice"), twoMasks.toString());
        error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .file("image", "a.png", png())
                                .file("image", "b.png", png())),
                400,
                "image");
        error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .field("prompt", "q")
                                .file("image", "a.png", png())),
                400,
                "prompt");
        // Several images are 'image[]' parts: accepted in order.
        HttpResponse<byte[]> listed = postMultipart(
                "/v1/images/edits",
                new OpenAiApiTest.Multiparts()
                        .field("prompt", "p")
                        .file("image[]", "a.png", png())
                        .file("image[]", "b.png", png()));
        assertEquals(200, listed.statusCode(), new String(listed.body(), StandardCharsets.UTF_8));
        assertEquals(2, seen.get().referenceImages().size());

        JsonNode twoNumbers = error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .field("n", "2 3")
                                .file("image", "a.png", png())),
                400,
                "n");
        String m = twoNumbers.get("message").asText();
        assertTrue(m.contains("'n'") && m.contains("one number") && m.contains("'2 3'"), m);
        // One number with white space around it is one number.
        HttpResponse<byte[]> spaced = postMultipart(
                "/v1/images/edits",
                new OpenAiApiTest.Multiparts()
                        .field("prompt", "p")
                        .field("seed", " 7\t")
                        .field("n", "2")
                        .file("image", "a.png", png()));
        assertEquals(200, spaced.statusCode(), new String(spaced.body(), StandardCharsets.UTF_8));
        assertEquals(7, seen.get().seed().orElseThrow());
        assertEquals(2, seen.get().numImages());
    }

    @Test
    void badBase64IsRefusedNamingTheFieldNotAFile() throws Exception {
        JsonNode e = error(
                postJson(
                        "/v1/images/edits", "{\"prompt\": \"p\", \"image\": \"data:image/png;base64,iVBOR!!w0KGgo=\"}"),
                400,
                "image");
        String m = e.get("message").asText();
        assertTrue(m.contains("'image'") && m.contains("base64"), m);
        assertFalse(m.contains("/tmp") || m.contains("flux2-upload"), m);
        // Valid base64 of bytes that are not an image: named by its field and item, not by a staging file.
        String notImage = Base64.getEncoder().encodeToString("not an image at all".getBytes(StandardCharsets.UTF_8));
        JsonNode n = error(
                postJson(
                        "/v1/images/edits",
                        "{\"prompt\": \"p\", \"images\": [{\"image_url\": \"data:image/png;base64,"
                                + Base64.getEncoder().encodeToString(png()) + "\"}, {\"image_url\":"
                                + " \"data:image/png;base64," + notImage + "\"}]}"),
                400,
                "images");
        String nm = n.get("message").asText();
        assertTrue(nm.contains("'images' item 2") && nm.contains("readable image format"), nm);
        assertFalse(nm.contains("/tmp") || nm.contains("flux2-upload"), nm);
        // A truncated init image with a mask is named as the image, not as the mask.
        byte[] whole = png();
        byte[] truncated = java.util.Arrays.copyOf(whole, whole.length / 2);
        JsonNode t = error(
                postMultipart(
                        "/v1/images/edits",
                        new OpenAiApiTest.Multiparts()
                                .field("prompt", "p")
                                .file("image", "a.png", truncated)
                                .file("mask", "m.png", whole)),
                400,
                "image");
        assertTrue(t.get("message").asText().contains("'image'"), t.toString());
        assertFalse(t.get("message").asText().contains("mask"), t.toString());
    }

    @Test
    void everyErrorHasOpenAisShapeJettysOwnIncluded() throws Exception {
        error(send("GET", "/nowhere", null, null), 404, null);
        error(send("GET", "/v1/images/generations", null, null), 405, null);
        HttpResponse<byte[]> put = send("PUT", "/images/edits", "application/json", "{}".getBytes());
        error(put, 405, null);
        assertEquals("POST", put.headers().firstValue("Allow").orElse(""));
        error(send("POST", "/v1/models", "application/json", "{}".getBytes()), 405, null);
        error(send("DELETE", "/v1/images/files/abc.png", null, null), 405, null);
        error(send("GET", "/v1/images/files/abc.png", null, null), 404, null);
        error(send("POST", "/metrics", "application/json", "{}".getBytes()), 405, null);
        // Requests Jetty refuses before any handler: an ambiguous path, a malformed request line, huge headers.
        assertJettyError("GET /v1/images/%2e%2e/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400);
        assertJettyError("GET /x HTTP/1.1 nonsense\r\nHost: 127.0.0.1\r\n\r\n", 400);
        assertJettyError(
                "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n\r\n", 431);
    }

    private void assertJettyError(String request, int status) throws Exception {
        try (Socket s = new Socket("127.0.0.1", service.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 " + status), answer);
            String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
            assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("content-type: application/json"), answer);
            JsonNode e = JSON.readTree(body).get("error");
            assertTrue(e != null && e.get("message").isTextual() && e.has("param") && e.has("code"), answer);
            assertEquals("invalid_request_error", e.get("type").asText(), answer);
        }
    }
}
