package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.ProgressListener;
import dev.flux2.api.Stage;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.timing.TimingBundleSpec;
import dev.flux2.testkit.timing.TimingBundleWriter;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When partial images arrive, on a real pipeline. Always: on a synthetic bundle, the generation is held before its
 * second step until the client has read the first partial image, so a server that sent them only at the end would
 * never release it. Opt-in ({@code -Dflux2.server.timing=true}): a streamed 512² request on the timing bundle (the real
 * transformer's width, docs/performance.md), printing when each event arrived against the server's step times.
 */
class StreamingLatencyIT {
    @TempDir
    static Path work;

    /** Generates with the pipeline, telling {@code onStep} each finished denoising step (on the worker). */
    private static ImageGenerator withSteps(Flux2Pipeline pipeline, ProgressListener onStep) {
        return (request, controls) -> {
            ProgressListener outer = controls.progressListener();
            GenerationControls wrapped = controls.withProgress(event -> {
                outer.onProgress(event);
                onStep.onProgress(event);
            });
            return pipeline.generate(request, wrapped);
        };
    }

    private static HttpResponse<InputStream> stream(int port, String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/images/generations"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofInputStream());
    }

    @Test
    void theFirstPartialImageArrivesBeforeTheSecondStepRuns() throws Exception {
        CountDownLatch firstPartialRead = new CountDownLatch(1);
        List<Boolean> released = new CopyOnWriteArrayList<>();
        var bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("synthetic"));
        try (Flux2Pipeline pipeline =
                        Flux2Pipeline.builder().model(bundle.directory()).build();
                ImageService service = ImageService.start(
                        withSteps(pipeline, e -> {
                            if (e.stage() == Stage.DENOISE
                                    && e.kind() == ProgressEvent.Kind.ADVANCED
                                    && e.completed() == 2) {
                                // step 1's preview was handed over before step 2 ran; hold here until it is read
                                released.add(await(firstPartialRead));
                            }
                        }),
                        ServiceConfig.builder()
                                .port(0)
                                .requestTimeout(Duration.ofSeconds(60))
                                .limits(pipeline.limits())
                                .build())) {
            HttpResponse<InputStream> r = stream(
                    service.port(),
                    "{\"prompt\":\"p\",\"size\":\"64x48\",\"steps\":4,\"stream\":true,\"partial_images\":3}");
            List<String> names = new ArrayList<>();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("event: ")) {
                        names.add(line.substring(7));
                        firstPartialRead.countDown();
                    }
                }
            }
            assertEquals(List.of(true), released, "the first partial image was read while step 2 waited");
            assertEquals(
                    List.of(
                            "image_generation.partial_image",
                            "image_generation.partial_image",
                            "image_generation.partial_image",
                            "image_generation.completed"),
                    names);
        }
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void timingBundleArrivals() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("flux2.server.timing"), "-Dflux2.server.timing=true measures");
        Path dir = work.resolve("timing");
        TimingBundleWriter.write(
                TimingBundleSpec.builder()
                        .transformer(TimingTransformerSpec.builder().build())
                        .defaultSize(512, 512)
                        .build(),
                dir);
        long[] start = {0};
        List<String> server = new CopyOnWriteArrayList<>();
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                        .model(dir)
                        .memoryPolicy(MemoryPolicy.RESIDENT)
                        .build();
                ImageService service = ImageService.start(
                        withSteps(pipeline, e -> {
                            if (e.kind() != ProgressEvent.Kind.STARTED) {
                                server.add(String.format(
                                        Locale.ROOT,
                                        "%8.0f ms  server: %s %s %d/%d",
                                        (System.nanoTime() - start[0]) / 1e6,
                                        e.stage(),
                                        e.kind(),
                                        e.completed(),
                                        e.total()));
                            }
                        }),
                        ServiceConfig.builder()
                                .port(0)
                                .requestTimeout(Duration.ofMinutes(20))
                                .limits(pipeline.limits())
                                .build())) {
            // warm-up: sessions opened, projection fitted
            drain(
                    stream(
                            service.port(),
                            "{\"prompt\":\"w\",\"size\":\"512x512\",\"stream\":true," + "\"partial_images\":1}"),
                    null,
                    0);
            server.clear();
            List<String> client = new ArrayList<>();
            start[0] = System.nanoTime();
            drain(
                    stream(
                            service.port(),
                            "{\"prompt\":\"a red fox\",\"size\":\"512x512\",\"steps\":4,\"stream\":true,"
                                    + "\"partial_images\":2}"),
                    client,
                    start[0]);
            List<String> all = new ArrayList<>(server);
            all.addAll(client);
            all.sort(null);
            System.out.println("Streamed 512² request on the timing bundle, "
                    + Runtime.getRuntime().availableProcessors() + " processor(s):");
            all.forEach(System.out::println);
            assertTrue(client.get(0).contains("partial_image"), client.toString());
        }
    }

    private static void drain(HttpResponse<InputStream> r, List<String> arrivals, long start) throws Exception {
        assertEquals(200, r.statusCode());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("event: ") && arrivals != null) {
                    arrivals.add(String.format(
                            Locale.ROOT, "%8.0f ms  client: %s", (System.nanoTime() - start) / 1e6, line.substring(7)));
                }
            }
        }
    }
}
