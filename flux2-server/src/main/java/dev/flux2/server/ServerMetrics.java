package dev.flux2.server;

import dev.flux2.api.GenerationResult;
import dev.flux2.api.Stage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;

/**
 * The server's meters in one Micrometer registry, scraped as Prometheus' text format at {@code GET /metrics}:
 * requests by route and status, the queue (running, waiting, rejected), generation time by stage, images
 * generated and seconds per denoising step. Thread-safe.
 */
final class ServerMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter images;
    private final DistributionSummary secondsPerStep;

    ServerMetrics(ServiceStats stats) {
        Gauge.builder("flux2_queue_running", stats.running, Number::doubleValue)
                .description("generations running now")
                .register(registry);
        Gauge.builder("flux2_queue_waiting", stats.waiting, Number::doubleValue)
                .description("admitted requests waiting for a worker")
                .register(registry);
        Gauge.builder("flux2_queue_rejected", stats.rejected, Number::doubleValue)
                .description("requests answered 429 since start")
                .register(registry);
        images = Counter.builder("flux2_images_generated")
                .description("images generated")
                .register(registry);
        secondsPerStep = DistributionSummary.builder("flux2_denoise_step_seconds")
                .description("denoising time divided by the steps run, per generation")
                .baseUnit("seconds")
                .register(registry);
    }

    /** Counts one answered request. */
    void request(String route, int status) {
        registry.counter("flux2_http_requests", "route", route, "status", Integer.toString(status))
                .increment();
    }

    /** Records a finished generation's stage times, images and seconds per step. */
    void generated(GenerationResult result) {
        for (Stage stage : Stage.values()) {
            Duration d = result.timings().of(stage);
            if (d != null && !d.isZero()) {
                Timer.builder("flux2_generation_stage")
                        .description("time spent in each pipeline stage")
                        .tag("stage", stage.name().toLowerCase(java.util.Locale.ROOT))
                        .register(registry)
                        .record(d);
            }
        }
        Timer.builder("flux2_generation")
                .description("whole generation time")
                .register(registry)
                .record(result.timings().total());
        images.increment(result.images().size());
        int steps = result.first().metadata().stepsRun();
        Duration denoise = result.timings().of(Stage.DENOISE);
        if (steps > 0 && denoise != null) {
            secondsPerStep.record(denoise.toNanos() / 1e9 / steps);
        }
    }

    /** @return the Prometheus text exposition */
    String scrape() {
        return registry.scrape();
    }
}
