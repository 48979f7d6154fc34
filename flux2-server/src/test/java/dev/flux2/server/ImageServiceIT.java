package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import dev.flux2.testkit.PngText;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image service over loopback on a real pipeline and a synthetic bundle. */
class ImageServiceIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static Flux2Pipeline pipeline;

    @BeforeAll
    static void openPipeline() {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        pipeline = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .build();
    }

    @AfterAll
    static void closePipeline() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(0)
                .modelLabel(pipeline.modelInfo().variant())
                .requestTimeout(Duration.ofSeconds(60));
    }

    @Test
    void postReturnsThePipelinesImageAsPng() throws Exception {
        try (ImageService service = ImageService.start(pipeline, config().build())) {
            ServiceClient client = new ServiceClient(service.port());
            HttpResponse<byte[]> r = client.post(
                    "{\"prompt\": \"a red fox\", \"width\": 48, \"height\": 32," + " \"seed\": 11, \"steps\": 3}");
            assertEquals(200, r.statusCode(), new String(r.body()));
            assertEquals("11", r.headers().firstValue("X-Flux2-Seed").orElse(""));
            BufferedImage png = ImageIO.read(new ByteArrayInputStream(r.body()));
            BufferedImage direct = pipeline.generate(GenerationRequest.builder("a red fox")
                            .size(48, 32)
                            .seed(11)
                            .steps(3)
                            .build())
                    .first()
                    .image();
            assertEquals(48, png.getWidth());
            assertEquals(32, png.getHeight());
            for (int y = 0; y < 32; y++) {
                for (int x = 0; x < 48; x++) {
                    assertEquals(direct.getRGB(x, y), png.getRGB(x, y), "pixel " + x + "," + y);
                }
            }
            Path file = Files.write(work.resolve("served.png"), r.body());
            assertEquals("a red fox", PngText.read(file).tEXt().get("prompt"));
            assertEquals("3", PngText.read(file).tEXt().get("steps"));

            JsonNode health = JSON.readTree(client.get("/health").body());
            assertEquals("ok", health.get("status").asText());
            assertEquals(pipeline.modelInfo().variant(), health.get("model").asText());
            assertEquals(1, health.get("completed").asInt());
        }
    }

    @Test
    void busyServiceAnswers429() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ImageGenerator gated = (request, controls) -> {
            started.countDown();
            ImageServiceTest.await(release);
            return pipeline.generate(request, controls);
        };
        try (ImageService service = ImageService.start(gated, config().build())) {
            ServiceClient client = new ServiceClient(service.port());
            CompletableFuture<HttpResponse<byte[]>> first = client.postAsync("{\"prompt\": \"one\", \"seed\": 1}");
            assertTrue(started.await(30, TimeUnit.SECONDS));
            HttpResponse<byte[]> second = client.post("{\"prompt\": \"two\", \"seed\": 2}");
            assertEquals(429, second.statusCode());
            release.countDown();
            assertEquals(200, first.get(60, TimeUnit.SECONDS).statusCode());
        }
    }

    @Test
    void timeoutCancelsTheRunningGenerationAndAnswers504() throws Exception {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        CountDownLatch finished = new CountDownLatch(1);
        // Holds the real generation after its first denoising step until the service cancels it; the pipeline
        // must then notice the cancellation and stop with GenerationCancelledException.
        ImageGenerator heldAtStep1 = (request, controls) -> {
            CancellationToken token = controls.cancellation().orElseThrow();
            GenerationControls held = controls.withProgress((ProgressEvent e) -> {
                if (e.stage() == Stage.DENOISE && e.kind() == ProgressEvent.Kind.ADVANCED) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!token.isCancelled() && System.nanoTime() < deadline) {
                        ImageServiceTest.sleep(5);
                    }
                }
            });
            try {
                return pipeline.generate(request, held);
            } catch (RuntimeException e) {
                outcome.set(e);
                throw e;
            } finally {
                finished.countDown();
            }
        };
        try (ImageService service = ImageService.start(
                heldAtStep1, config().requestTimeout(Duration.ofMillis(1500)).build())) {
            ServiceClient client = new ServiceClient(service.port());
            HttpResponse<byte[]> r = client.post("{\"prompt\": \"slow\", \"seed\": 3, \"steps\": 4}");
            assertEquals(504, r.statusCode(), new String(r.body()));
            assertTrue(finished.await(30, TimeUnit.SECONDS));
            assertTrue(
                    outcome.get() instanceof GenerationCancelledException,
                    "the pipeline stopped with GenerationCancelledException, got " + outcome.get());
            JsonNode health = JSON.readTree(client.get("/health").body());
            assertEquals(1, health.get("cancelled").asInt());
            assertEquals(1, health.get("timed_out").asInt());
        }
        // The shared pipeline is still usable after a cancelled generation.
        assertEquals(
                32,
                pipeline.generate(GenerationRequest.builder("after")
                                .size(32, 32)
                                .seed(1)
                                .build())
                        .first()
                        .image()
                        .getWidth());
    }
}
