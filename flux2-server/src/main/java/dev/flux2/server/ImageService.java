package dev.flux2.server;

import dev.flux2.Flux2Pipeline;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A small image-generation HTTP service on Jetty, sharing one pipeline between requests.
 *
 * <ul>
 * <li>OpenAI's Images API: {@code POST /v1/images/generations}, {@code POST /v1/images/edits},
 *     {@code GET /v1/models}, errors as {@code {"error": {"message", "type", "param", "code"}}} (every error of the
 *     server, Jetty's own included); each also without the {@code /v1} prefix ({@link ApiPaths});</li>
 * <li>{@code GET /metrics} in Prometheus' text format;</li>
 * <li>the PNG shortcut {@code POST /v1/images} with {@code {"prompt": "...", "width": 512, "height": 512, "seed": 42,
 *     "steps": 4}} → {@code 200 image/png} (parameters in PNG text chunks, seed in {@code X-Flux2-Seed});</li>
 * <li>{@code 429} at once, before the body is read, when {@code workers + queueCapacity} requests are already
 *     admitted or the bodies held at once would exceed {@link ServiceConfig#bodyBudgetBytes()};</li>
 * <li>{@code 504} when a request exceeds its timeout: its generation is cancelled through its
 *     {@link dev.flux2.api.CancellationToken};</li>
 * <li>{@code GET /} → the playground page ({@link PlaygroundPage}), unless {@link ServiceConfig#ui()} is off.</li>
 * <li>{@code GET /health} → {@code 200} JSON with the model, limits and counters.</li>
 * </ul>
 *
 * <p>Protection against slow and abusive clients (the reasons Jetty replaced the JDK's {@code HttpServer}, which on
 * JDK 17 reads headers in a pooled thread without a read timeout and has no connection cap): headers are parsed
 * without holding a thread; a connection silent for {@link ServiceConfig#idleTimeout()} is closed (a tenth of it
 * while the connection cap is reached); at most {@link ServiceConfig#maxConnections()} connections are open; a
 * declared {@code Content-Length} over {@link ServiceConfig#maxBodyBytes()} is answered 413 before the body is read;
 * the whole body must arrive within {@link ServiceConfig#bodyTimeout()} (else 408); a request whose client hung up is
 * dropped from the queue or cancelled; the thread pool holds a thread for every connection, so {@code /health}
 * always has one.
 *
 * <p>Thread-safe. {@link #close()} stops accepting connections, cancels running generations and waits for them;
 * it does not close the pipeline (the caller owns it).
 */
public final class ImageService implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ImageService.class);

    private final Server server;
    private final ServerConnector connector;
    private final GenerationQueue queue;
    private final AtomicBoolean closed = new AtomicBoolean();

    private ImageService(Server server, ServerConnector connector, GenerationQueue queue) {
        this.server = server;
        this.connector = connector;
        this.queue = queue;
    }

    /**
     * Starts the service on a shared pipeline.
     *
     * @param pipeline the pipeline (not closed by the service)
     * @param config address and limits
     * @return the running service
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static ImageService start(Flux2Pipeline pipeline, ServiceConfig config) {
        Objects.requireNonNull(pipeline, "pipeline");
        return start(pipeline::generate, config, !pipeline.modelInfo().distilled(), null);
    }

    /**
     * Starts the service on a shared pipeline and a socket bound beforehand (before the model loaded: a busy port
     * is then found in milliseconds).
     *
     * @param pipeline the pipeline (not closed by the service)
     * @param config address and limits; its address must be the one {@code port} was bound to
     * @param port the bound socket; the service takes it over and closes it
     * @return the running service
     */
    public static ImageService start(Flux2Pipeline pipeline, ServiceConfig config, BoundPort port) {
        Objects.requireNonNull(pipeline, "pipeline");
        Objects.requireNonNull(port, "port");
        return start(pipeline::generate, config, !pipeline.modelInfo().distilled(), port);
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
        return start(generator, config, false, null);
    }

    /**
     * @param trueCfg whether the model has true classifier-free guidance ({@code negative_prompt} accepted)
     * @param port a socket bound beforehand, or null to bind {@code config.address()} now
     */
    static ImageService start(ImageGenerator generator, ServiceConfig config, boolean trueCfg, BoundPort port) {
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(config, "config");
        if (port != null && !port.address().equals(config.address())) {
            throw new IllegalArgumentException("the socket was bound to " + port.address() + " but the config's"
                    + " address is " + config.address());
        }
        // Bound first: a busy port is refused with its reason (BoundPort) before anything is started.
        BoundPort socket = port != null ? port : BoundPort.bind(config.address());
        ServiceStats stats = new ServiceStats();
        GenerationQueue queue = new GenerationQueue(generator, config, stats);
        BodyBudget budget = new BodyBudget(config.bodyBudgetBytes());
        // One thread per possible connection plus Jetty's acceptor and selector threads: a handler blocked on a slow
        // body or on a generation never takes the thread /health needs.
        QueuedThreadPool threads = new QueuedThreadPool(config.maxConnections() + 16, 4);
        threads.setName("flux2-http");
        threads.setDaemon(true);
        Server server = new Server(threads);
        server.setErrorHandler(new ErrorAnswers());
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost(config.address().getHostString());
        connector.setPort(config.address().getPort());
        connector.setIdleTimeout(config.idleTimeout().toMillis());
        server.addConnector(connector);
        NetworkConnectionLimit limit = new NetworkConnectionLimit(config.maxConnections(), server);
        limit.setEndPointIdleTimeout(Math.max(1, config.idleTimeout().toMillis() / 10));
        server.addBean(limit);
        HeaderDeadline heads =
                new HeaderDeadline(connector.getScheduler(), config.headerTimeout(), config.idleTimeout());
        connector.addEventListener(heads);
        ServerMetrics metrics = new ServerMetrics(stats);
        ImageStore store = new ImageStore();
        ModelsHandler models = new ModelsHandler(config);
        Map<String, Route> routes = new java.util.HashMap<>(Map.of(
                ImagesHandler.PATH, new ImagesHandler(queue, budget, config, metrics),
                OpenAiImagesHandler.GENERATIONS,
                        new OpenAiImagesHandler(false, queue, budget, config, metrics, store, trueCfg),
                OpenAiImagesHandler.EDITS,
                        new OpenAiImagesHandler(true, queue, budget, config, metrics, store, trueCfg),
                ModelsHandler.PATH, models,
                HealthHandler.PATH, new HealthHandler(config, stats, budget),
                MetricsHandler.PATH, new MetricsHandler(metrics)));
        if (config.ui()) {
            routes.put(PlaygroundPage.PATH, new PlaygroundPage());
        }
        RequestGuard guard = new RequestGuard(config);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                org.eclipse.jetty.io.Connection connection =
                        request.getConnectionMetaData().getConnection();
                heads.headArrived(connection);
                Callback done = Callback.from(callback, () -> heads.answered(connection));
                String path = ApiPaths.canonical(Request.getPathInContext(request));
                Route route = routes.get(path);
                String label = route != null ? path : "other";
                if (route == null && path.startsWith(ImageStore.PREFIX)) {
                    route = store;
                    label = ImageStore.PREFIX + "*";
                } else if (route == null && path.startsWith(ModelsHandler.PATH + "/")) {
                    route = models;
                    label = ModelsHandler.PATH + "/*";
                }
                try {
                    if (guard.check(request, response, path)) {
                        HttpExchanges.send(response, done, 204, "text/plain", new byte[0]);
                    } else if (route == null) {
                        HttpExchanges.sendError(
                                response,
                                done,
                                new ApiError(
                                        404,
                                        "no resource " + OpenAiImageRequest.shortened(Request.getPathInContext(request))
                                                + "; try POST " + OpenAiImagesHandler.GENERATIONS + ", "
                                                + OpenAiImagesHandler.EDITS + ", " + ImagesHandler.PATH + " or GET "
                                                + ModelsHandler.PATH + ", " + HealthHandler.PATH + ", "
                                                + MetricsHandler.PATH + " (the OpenAI paths also without /v1)",
                                        null,
                                        "not_found"));
                    } else {
                        route.handle(request, response, done);
                    }
                } catch (ApiError e) {
                    if (e.status() == 401) {
                        response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.WWW_AUTHENTICATE, "Bearer");
                    }
                    HttpExchanges.sendError(response, done, e);
                }
                metrics.request(label, response.getStatus());
                return true;
            }
        });
        server.setStopTimeout(1000);
        try {
            connector.open(socket.take());
            server.start();
        } catch (Exception e) {
            queue.close();
            socket.close();
            try {
                server.stop();
            } catch (Exception stop) {
                e.addSuppressed(stop);
            }
            throw new UncheckedIOException(
                    "cannot listen on " + config.address() + ": " + e.getMessage(),
                    e instanceof java.io.IOException io ? io : new java.io.IOException(e));
        }
        return new ImageService(server, connector, queue);
    }

    /** @return the port the service listens on (useful with port 0) */
    public int port() {
        return connector.getLocalPort();
    }

    /** Stops the service: no new connections, running generations cancelled and awaited. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        queue.close();
        try {
            server.stop();
        } catch (java.util.concurrent.TimeoutException e) {
            // The graceful phase ended with idle keep-alive connections still open; they are closed all the same.
            LOG.debug("HTTP server stopped after its graceful timeout: {}", e.toString());
        } catch (Exception e) {
            throw new IllegalStateException("stopping the HTTP server failed: " + e, e);
        }
    }
}
