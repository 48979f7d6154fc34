package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.InferenceException;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewMode;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * OpenAI's streamed answer over loopback against a stand-in generator that makes previews: event names and fields,
 * which steps become partial images, n > 1, the refusals that stay HTTP answers (400, 429), an error after the
 * stream began as an {@code error} event, the timeout, and a client that hangs up cancelling the generation.
 */
class OpenAiStreamingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One server-sent event. */
    record Event(String name, JsonNode data) {}

    /**
     * A generator that makes a W/8 preview after every step of each image (as the pipeline's linear previews), then
     * FakeImages' images; {@code between} runs after each preview.
     */
    private static ImageGenerator previewing(Between between) {
        return (request, controls) -> {
            int steps = request.steps().orElse(4);
            int w = request.width().orElse(64);
            int h = request.height().orElse(48);
            for (int k = 0; k < request.numImages(); k++) {
                for (int step = 1; step < steps; step++) {
                    if (controls.previews().isPresent()) {
                        controls.previewListener()
                                .onPreview(new Preview(k, step, steps, PreviewMode.LINEAR, small(w / 8, h / 8, step)));
                    }
                    between.after(k, step, controls);
                }
            }
            return FakeImages.of(request);
        };
    }

    @FunctionalInterface
    interface Between {
        void after(int image, int step, GenerationControls controls);
    }

    private static BufferedImage small(int w, int h, int step) {
        BufferedImage image = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                image.setRGB(x, y, step * 0x203040 + x * 7 + y);
            }
        }
        return image;
    }

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder().port(0).workers(1).queueCapacity(0).requestTimeout(Duration.ofSeconds(20));
    }

    private static HttpResponse<InputStream> post(int port, String path, String json) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(json))
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
    }

    static List<Event> events(InputStream body) throws IOException {
        List<Event> events = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String name = null;
            StringBuilder data = new StringBuilder();
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.isEmpty()) {
                    if (name != null) {
                        events.add(new Event(name, JSON.readTree(data.toString())));
                    }
                    name = null;
                    data.setLength(0);
                } else if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
        }
        return events;
    }

    private static String body(HttpResponse<InputStream> r) {
        try {
            return new String(r.body().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static BufferedImage image(JsonNode data) throws IOException {
        return ImageIO.read(new ByteArrayInputStream(
                Base64.getDecoder().decode(data.get("b64_json").asText())));
    }

    @Test
    void generationsStreamPartialImagesThenTheCompletedImage() throws Exception {
        try (ImageService service = ImageService.start(previewing((k, s, c) -> {}), config().build())) {
            HttpResponse<InputStream> r = post(
                    service.port(),
                    "/v1/images/generations",
                    "{\"prompt\":\"p\",\"size\":\"64x48\",\"seed\":5,\"steps\":4,\"stream\":true,\"partial_images\":2}");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
            List<Event> events = events(r.body());
            assertEquals(
                    List.of(
                            "image_generation.partial_image",
                            "image_generation.partial_image",
                            "image_generation.completed"),
                    events.stream().map(Event::name).toList());
            for (int i = 0; i < 2; i++) {
                JsonNode partial = events.get(i).data();
                assertEquals(
                        "image_generation.partial_image", partial.get("type").asText());
                assertEquals(i, partial.get("partial_image_index").asInt());
                assertEquals("64x48", partial.get("size").asText());
                assertEquals("png", partial.get("output_format").asText());
                assertEquals("auto", partial.get("quality").asText());
                assertEquals("auto", partial.get("background").asText());
                assertTrue(partial.get("created_at").asLong() > 1_700_000_000L);
                BufferedImage shown = image(partial);
                assertEquals(64, shown.getWidth(), "scaled to the image's size");
                // 4 steps, 2 partial images: after steps 1 and 3; the preview's colour says which
                int step = i == 0 ? 1 : 3;
                assertEquals(small(8, 6, step).getRGB(3, 2) & 0xffffff, shown.getRGB(27, 19) & 0xffffff, 24);
            }
            JsonNode done = events.get(2).data();
            assertEquals("image_generation.completed", done.get("type").asText());
            assertFalse(done.has("partial_image_index"));
            assertEquals(12, done.get("usage").get("output_tokens").asInt());
            assertTrue(done.get("usage").has("input_tokens_details"));
            BufferedImage expected = FakeImages.image(64, 48, 5);
            assertArrayEquals(
                    expected.getRGB(0, 0, 64, 48, null, 0, 64), image(done).getRGB(0, 0, 64, 48, null, 0, 64));
        }
    }

    @Test
    void editsNameTheirEventsAndSeveralImagesStreamInTurn() throws Exception {
        try (ImageService service = ImageService.start(previewing((k, s, c) -> {}), config().build())) {
            BufferedImage init = FakeImages.image(64, 64, 1);
            java.io.ByteArrayOutputStream png = new java.io.ByteArrayOutputStream();
            ImageIO.write(init, "png", png);
            String dataUrl = "data:image/png;base64," + Base64.getEncoder().encodeToString(png.toByteArray());
            HttpResponse<InputStream> r = post(
                    service.port(),
                    "/v1/images/edits",
                    "{\"prompt\":\"p\",\"images\":[{\"image_url\":\"" + dataUrl + "\"}],\"n\":2,\"seed\":9,"
                            + "\"steps\":4,\"stream\":true,\"partial_images\":1}");
            assertEquals(200, r.statusCode(), () -> body(r));
            List<Event> events = events(r.body());
            assertEquals(
                    List.of(
                            "image_edit.partial_image",
                            "image_edit.partial_image",
                            "image_edit.completed",
                            "image_edit.completed"),
                    events.stream().map(Event::name).toList());
            assertEquals(0, events.get(0).data().get("partial_image_index").asInt());
            assertEquals(0, events.get(1).data().get("partial_image_index").asInt(), "counted per image");
            assertEquals(9, events.get(2).data().get("seed").asLong());
            assertEquals(10, events.get(3).data().get("seed").asLong());
        }
    }

    @Test
    void noPartialImagesStreamsOnlyTheCompletedImage() throws Exception {
        try (ImageService service = ImageService.start(
                previewing((k, s, c) -> {
                    if (c.previews().isPresent()) {
                        throw new AssertionError("no previews are asked for with partial_images 0");
                    }
                }),
                config().build())) {
            HttpResponse<InputStream> r =
                    post(service.port(), "/v1/images/generations", "{\"prompt\":\"p\",\"stream\":true}");
            assertEquals(
                    List.of("image_generation.completed"),
                    events(r.body()).stream().map(Event::name).toList());
        }
    }

    @Test
    void refusalsBeforeTheStreamAreHttpAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        try (ImageService service = ImageService.start(
                previewing((k, s, c) -> {
                    running.countDown();
                    await(release);
                }),
                config().build())) {
            HttpResponse<InputStream> bad = post(
                    service.port(),
                    "/v1/images/generations",
                    "{\"prompt\":\"p\",\"stream\":true,\"partial_images\":4}");
            assertEquals(400, bad.statusCode());
            assertTrue(new String(bad.body().readAllBytes(), StandardCharsets.UTF_8).contains("partial_images"));

            var first = HttpClient.newHttpClient()
                    .sendAsync(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + service.port() + "/v1/images/generations"))
                                    .header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(
                                            "{\"prompt\":\"p\",\"stream\":true,\"partial_images\":3}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofInputStream());
            assertTrue(running.await(10, TimeUnit.SECONDS));
            HttpResponse<InputStream> full =
                    post(service.port(), "/v1/images/generations", "{\"prompt\":\"p\",\"stream\":true}");
            assertEquals(429, full.statusCode(), "the one worker is busy and the queue holds none");
            assertEquals("1", full.headers().firstValue("retry-after").orElse(""));
            release.countDown();
            assertEquals(200, first.get(20, TimeUnit.SECONDS).statusCode());
        }
    }

    @Test
    void aFailureAfterTheFirstEventIsAnErrorEvent() throws Exception {
        try (ImageService service = ImageService.start(
                previewing((k, s, c) -> {
                    if (s == 2) {
                        throw new InferenceException("the transformer failed at step 3 (test)");
                    }
                }),
                config().build())) {
            HttpResponse<InputStream> r = post(
                    service.port(),
                    "/v1/images/generations",
                    "{\"prompt\":\"p\",\"steps\":4,\"stream\":true,\"partial_images\":3}");
            assertEquals(200, r.statusCode());
            List<Event> events = events(r.body());
            assertEquals(
                    List.of("image_generation.partial_image", "image_generation.partial_image", "error"),
                    events.stream().map(Event::name).toList());
            JsonNode error = events.get(2).data();
            assertEquals("error", error.get("type").asText());
            assertTrue(error.get("error").get("message").asText().contains("step 3 (test)"), error.toString());
            assertEquals("server_error", error.get("error").get("type").asText());
        }
    }

    @Test
    void theTimeoutStillHoldsAndEndsTheStreamWithAnError() throws Exception {
        try (ImageService service = ImageService.start(
                previewing((k, s, c) -> {
                    if (s == 1) {
                        awaitCancel(c, 20);
                    }
                }),
                config().requestTimeout(Duration.ofMillis(1500)).build())) {
            HttpResponse<InputStream> r = post(
                    service.port(),
                    "/v1/images/generations",
                    "{\"prompt\":\"p\",\"steps\":4,\"stream\":true,\"partial_images\":3}");
            List<Event> events = events(r.body());
            assertEquals("image_generation.partial_image", events.get(0).name());
            Event last = events.get(events.size() - 1);
            assertEquals("error", last.name());
            assertTrue(last.data().get("error").get("message").asText().contains("1500 ms"), last.toString());
        }
    }

    @Test
    void aClientThatHangsUpCancelsTheGeneration() throws Exception {
        AtomicBoolean cancelled = new AtomicBoolean();
        CountDownLatch ended = new CountDownLatch(1);
        try (ImageService service = ImageService.start(
                previewing((k, s, c) -> {
                    if (s == 1) {
                        cancelled.set(awaitCancel(c, 20));
                        ended.countDown();
                        if (c.cancellation().orElseThrow().isCancelled()) {
                            throw new GenerationCancelledException("cancelled (test)");
                        }
                    }
                }),
                config().build())) {
            String body = "{\"prompt\":\"p\",\"steps\":4,\"stream\":true,\"partial_images\":3}";
            try (Socket socket = new Socket("127.0.0.1", service.port())) {
                OutputStream out = socket.getOutputStream();
                out.write(
                        ("POST /v1/images/generations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                        + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                                .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !line.startsWith("event: image_generation.partial_image")) {
                    // headers, then the first event
                }
                assertTrue(line != null, "the first partial image arrived");
            }
            assertTrue(ended.await(15, TimeUnit.SECONDS), "the generation ended");
            assertTrue(cancelled.get(), "the hang-up cancelled the generation");
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits until the generation's token is cancelled. @return whether it was, within the seconds given */
    private static boolean awaitCancel(GenerationControls controls, int seconds) {
        CancellationToken token = controls.cancellation().orElseThrow();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!token.isCancelled() && System.nanoTime() < end) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return token.isCancelled();
    }
}
