package dev.flux2.server.reliability;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.StageTimings;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.awt.image.BufferedImage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The server on a stand-in generator (each generation takes {@code args[1]} ms), for {@link UploadBudgetTest}'s
 * small-heap JVM: prints {@code port N} on stdout, serves until stdin closes.
 */
public final class SmallHeapServer {
    private SmallHeapServer() {}

    /** @param args max upload bytes, generation milliseconds, queue capacity */
    public static void main(String[] args) throws Exception {
        int maxUpload = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        int queue = Integer.parseInt(args[2]);
        ServiceConfig config = ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(queue)
                .maxUploadBytes(maxUpload)
                .bodyTimeout(Duration.ofSeconds(60))
                .requestTimeout(Duration.ofSeconds(120))
                .build();
        try (ImageService service = ImageService.start(
                (r, controls) -> {
                    try {
                        Thread.sleep(millis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    int w = r.width().orElse(32);
                    int h = r.height().orElse(32);
                    StageTimings t = new StageTimings(Map.of(), Duration.ofMillis(1), Duration.ofMillis(1));
                    GenerationMetadata m = new GenerationMetadata(
                            r.prompt(),
                            OptionalLong.of(1),
                            4,
                            4,
                            w,
                            h,
                            1,
                            OptionalDouble.empty(),
                            0,
                            false,
                            0,
                            "fake",
                            t);
                    return new GenerationResult(
                            List.of(new GeneratedImage(new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB), m)), t);
                },
                config)) {
            System.out.println("port " + service.port() + " budget " + config.bodyBudgetBytes());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes stdin
            }
        }
    }
}
