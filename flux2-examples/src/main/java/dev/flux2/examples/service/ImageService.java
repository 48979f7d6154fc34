package dev.flux2.examples.service;

import com.sun.net.httpserver.HttpServer;
import dev.flux2.api.Flux2Pipeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small image-generation HTTP service on the JDK's {@link HttpServer}, sharing one pipeline between requests.
 *
 * <ul>
 * <li>{@code POST /v1/images} with {@code {"prompt": "...", "width": 512, "height": 512, "seed": 42,
 *     "steps": 4}} → {@code 200 image/png} (parameters in PNG text chunks, seed in {@code X-Flux2-Seed});</li>
 * <li>{@code 429} at once when {@code workers + queueCapacity} requests are already admitted;</li>
 * <li>{@code 504} when a request exceeds its timeout: its generation is cancelled through its
 *     {@link dev.flux2.api.CancellationToken};</li>
 * <li>{@code GET /health} → {@code 200} JSON with the model, limits and counters.</li>
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} stops accepting connections, cancels running generations and waits for them;
 * it does not close the pipeline (the caller owns it).
 */
public final class ImageService implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService httpThreads;
    private final GenerationQueue queue;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ImageService(HttpServer server, ExecutorService httpThreads, GenerationQueue queue) {
        this.server = server;
        this.httpThreads = httpThreads;
        this.queue = queue;
    }

    /**
     * Starts the service on a shared pipeline.
     *
     * @param pipeline the pipeline (not closed by the service)
     * @param config address and limits
     * @return the running service
     */
    public static ImageService start(Flux2Pipeline pipeline, ServiceConfig config) {
        Objects.requireNonNull(pipeline, "pipeline");
        return start(pipeline::generate, config);
    }

    /**
     * Starts the service on any generator (for example a pipeline wrapped with metrics).
     *
     * @param generator what generates the images
     * @param config address and limits
     * @return the running service
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static ImageService start(ImageGenerator generator, ServiceConfig config) {
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(config, "config");
        ServiceStats stats = new ServiceStats();
        GenerationQueue queue = new GenerationQueue(generator, config, stats);
        HttpServer server;
        try {
            server = HttpServer.create(config.address(), 0);
        } catch (IOException e) {
            queue.close();
            throw new UncheckedIOException("cannot listen on " + config.address() + ": " + e.getMessage(), e);
        }
        // Admitted requests wait in their handler thread; extra threads answer rejections and health checks.
        int threads = config.workers() + config.queueCapacity() + 8;
        AtomicInteger n = new AtomicInteger();
        ExecutorService httpThreads = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "flux2-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(httpThreads);
        server.createContext(ImagesHandler.PATH, new ImagesHandler(queue));
        server.createContext(HealthHandler.PATH, new HealthHandler(config, stats));
        server.createContext("/", ex -> {
            try (ex) {
                HttpExchanges.sendError(
                        ex,
                        404,
                        "no resource " + ex.getRequestURI().getPath() + "; try POST " + ImagesHandler.PATH + " or GET "
                                + HealthHandler.PATH);
            }
        });
        server.start();
        return new ImageService(server, httpThreads, queue);
    }

    /** @return the port the service listens on (useful with port 0) */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops the service: no new connections, running generations cancelled and awaited. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        queue.close();
        server.stop(1);
        httpThreads.shutdown();
        try {
            if (!httpThreads.awaitTermination(5, TimeUnit.SECONDS)) {
                httpThreads.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            httpThreads.shutdownNow();
        }
    }
}
