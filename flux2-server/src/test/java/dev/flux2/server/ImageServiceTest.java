package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.StageTimings;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * The HTTP layer of the service (admission, timeouts, errors) over loopback, with a stand-in generator whose
 * timing the test controls. {@code ImageServiceIT} runs the same service on a real pipeline.
 */
class ImageServiceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Paints the requested size with a colour derived from the seed, like a generation would. */
    private static GenerationResult fakeImage(GenerationRequest r) {
        int w = r.width().orElse(64);
        int h = r.height().orElse(48);
        long seed = r.seed().orElse(99);
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                img.setRGB(x, y, (int) (seed * 2654435761L) ^ (x << 8) ^ y);
            }
        }
        StageTimings t = new StageTimings(Map.of(), Duration.ofMillis(5), Duration.ofMillis(4));
        GenerationMetadata m = new GenerationMetadata(
                r.prompt(),
                OptionalLong.of(seed),
                r.steps().orElse(4),
                r.steps().orElse(4),
                w,
                h,
                1f,
                OptionalDouble.empty(),
                0,
                false,
                0,
                "fake",
                t);
        return new GenerationResult(List.of(new GeneratedImage(img, m)), t);
    }

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(0)
                .modelLabel("fake-model")
                .requestTimeout(Duration.ofSeconds(30));
    }

    @Test
    void postReturnsAPngOfTheRequestedSizeWithTheSeed() throws Exception {
        try (ImageService service =
                ImageService.start((r, controls) -> ImageServiceTest.fakeImage(r), config().build())) {
            HttpResponse<byte[]> r = new ServiceClient(service.port())
                    .post("{\"prompt\": \"a fox\", \"size\": \"80x32\", \"seed\": 7, \"steps\": 2}");
            assertEquals(200, r.statusCode());
            assertEquals("image/png", r.headers().firstValue("Content-Type").orElse(""));
            assertEquals("7", r.headers().firstValue("X-Flux2-Seed").orElse(""));
            BufferedImage png = ImageIO.read(new ByteArrayInputStream(r.body()));
            assertEquals(80, png.getWidth());
            assertEquals(32, png.getHeight());
            BufferedImage expected = fakeImage(GenerationRequest.builder("a fox")
                            .size(80, 32)
                            .seed(7)
                            .build())
                    .first()
                    .image();
            assertEquals(expected.getRGB(13, 17), png.getRGB(13, 17));
        }
    }

    @Test
    void badBodiesAre400AndWrongMethodsAre405() throws Exception {
        try (ImageService service =
                ImageService.start((r, controls) -> ImageServiceTest.fakeImage(r), config().build())) {
            ServiceClient client = new ServiceClient(service.port());
            assertEquals(400, client.post("not json").statusCode());
            assertEquals(400, client.post("{\"width\": 64}").statusCode(), "prompt is required");
            HttpResponse<byte[]> size = client.post("{\"prompt\": \"x\", \"width\": 100}");
            assertEquals(400, size.statusCode());
            assertTrue(new String(size.body()).contains("multiple of 16"));
            assertEquals(
                    400,
                    client.post("{\"prompt\": \"x\", \"colour\": \"red\"}").statusCode(),
                    "unknown fields are rejected");
            assertEquals(405, client.get("/v1/images").statusCode());
            assertEquals(404, client.get("/v2/other").statusCode());
        }
    }

    @Test
    void fullQueueAnswers429AtOnce() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ImageGenerator blocking = (r, controls) -> {
            started.countDown();
            await(release);
            return fakeImage(r);
        };
        try (ImageService service = ImageService.start(blocking, config().build())) {
            ServiceClient client = new ServiceClient(service.port());
            CompletableFuture<HttpResponse<byte[]>> first = client.postAsync("{\"prompt\": \"one\"}");
            assertTrue(started.await(10, TimeUnit.SECONDS), "the first generation started");
            HttpResponse<byte[]> second = client.post("{\"prompt\": \"two\"}");
            assertEquals(429, second.statusCode());
            assertEquals("1", second.headers().firstValue("Retry-After").orElse(""));
            release.countDown();
            assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
            JsonNode health = JSON.readTree(client.get("/health").body());
            assertEquals(1, health.get("rejected").asInt());
            assertEquals(1, health.get("completed").asInt());
        }
    }

    @Test
    void queuedRequestWaitsForTheWorker() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ImageGenerator blocking = (r, controls) -> {
            if (r.prompt().equals("one")) {
                started.countDown();
                await(release);
            }
            return fakeImage(r);
        };
        try (ImageService service =
                ImageService.start(blocking, config().queueCapacity(1).build())) {
            ServiceClient client = new ServiceClient(service.port());
            CompletableFuture<HttpResponse<byte[]>> first = client.postAsync("{\"prompt\": \"one\"}");
            assertTrue(started.await(10, TimeUnit.SECONDS));
            CompletableFuture<HttpResponse<byte[]>> second = client.postAsync("{\"prompt\": \"two\"}");
            waitFor(() -> healthValue(client, "waiting") == 1);
            assertEquals(429, client.post("{\"prompt\": \"three\"}").statusCode(), "worker busy and queue full");
            release.countDown();
            assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
            assertEquals(200, second.get(10, TimeUnit.SECONDS).statusCode());
        }
    }

    @Test
    void closeCancelsQueuedGenerationsToo() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Boolean> queuedSawCancellation = new AtomicReference<>();
        ImageGenerator untilCancelled = (r, controls) -> {
            CancellationToken token = controls.cancellation().orElseThrow();
            if (r.prompt().equals("one")) {
                started.countDown();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (!token.isCancelled() && System.nanoTime() < deadline) {
                sleep(5);
            }
            if (r.prompt().equals("two")) {
                queuedSawCancellation.set(token.isCancelled());
            }
            if (token.isCancelled()) {
                throw new GenerationCancelledException("cancelled at step 1/4");
            }
            return fakeImage(r);
        };
        CompletableFuture<HttpResponse<byte[]>> second;
        try (ImageService service =
                ImageService.start(untilCancelled, config().queueCapacity(1).build())) {
            ServiceClient client = new ServiceClient(service.port());
            client.postAsync("{\"prompt\": \"one\"}");
            assertTrue(started.await(10, TimeUnit.SECONDS));
            second = client.postAsync("{\"prompt\": \"two\"}");
            waitFor(() -> healthValue(client, "waiting") == 1);
        }
        // The queued request started only after close() had cancelled the running ones: it is cancelled too.
        assertEquals(Boolean.TRUE, queuedSawCancellation.get());
        assertEquals(503, second.get(10, TimeUnit.SECONDS).statusCode());
    }

    @Test
    void timeoutCancelsTheGenerationAndAnswers504() throws Exception {
        AtomicReference<Throwable> ended = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        ImageGenerator untilCancelled = (r, controls) -> {
            CancellationToken token = controls.cancellation().orElseThrow();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!token.isCancelled() && System.nanoTime() < deadline) {
                    sleep(5);
                }
                GenerationCancelledException e = new GenerationCancelledException("cancelled at step 1/4");
                ended.set(e);
                throw e;
            } finally {
                done.countDown();
            }
        };
        try (ImageService service = ImageService.start(
                untilCancelled, config().requestTimeout(Duration.ofMillis(300)).build())) {
            ServiceClient client = new ServiceClient(service.port());
            HttpResponse<byte[]> r = client.post("{\"prompt\": \"slow\"}");
            assertEquals(504, r.statusCode());
            assertTrue(done.await(5, TimeUnit.SECONDS));
            assertTrue(ended.get() instanceof GenerationCancelledException, "the generation saw the cancellation");
            JsonNode health = JSON.readTree(client.get("/health").body());
            assertEquals(1, health.get("timed_out").asInt());
            assertEquals(1, health.get("cancelled").asInt());
            assertEquals(0, health.get("running").asInt());
            // The worker is free again.
            assertEquals(504, client.post("{\"prompt\": \"slow again\"}").statusCode());
        }
    }

    @Test
    void healthReportsModelAndLimits() throws Exception {
        try (ImageService service = ImageService.start(
                (r, controls) -> ImageServiceTest.fakeImage(r),
                config().workers(2).queueCapacity(3).build())) {
            HttpResponse<String> r = new ServiceClient(service.port()).get("/health");
            assertEquals(200, r.statusCode());
            JsonNode body = JSON.readTree(r.body());
            assertEquals("ok", body.get("status").asText());
            assertEquals("fake-model", body.get("model").asText());
            assertEquals(2, body.get("workers").asInt());
            assertEquals(3, body.get("queue_capacity").asInt());
        }
    }

    @Test
    void pngBytesAreIdenticalForTheSameRequest() throws Exception {
        try (ImageService service =
                ImageService.start((r, controls) -> ImageServiceTest.fakeImage(r), config().build())) {
            ServiceClient client = new ServiceClient(service.port());
            byte[] a = client.post("{\"prompt\": \"p\", \"seed\": 3}").body();
            byte[] b = client.post("{\"prompt\": \"p\", \"seed\": 3}").body();
            assertArrayEquals(a, b);
        }
    }

    static long healthValue(ServiceClient client, String field) {
        try {
            return JSON.readTree(client.get("/health").body()).get(field).asLong();
        } catch (Exception e) {
            throw new AssertionError("health check failed", e);
        }
    }

    static void waitFor(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            sleep(10);
        }
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
