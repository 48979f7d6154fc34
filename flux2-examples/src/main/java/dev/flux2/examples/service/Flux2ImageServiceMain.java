package dev.flux2.examples.service;

import dev.flux2.api.Flux2Pipeline;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.examples.cli.ErrorReporter;
import dev.flux2.examples.cli.LimitOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sun.misc.Signal;

/**
 * Runs {@link ImageService} from the command line:
 * {@code java -cp flux2.jar dev.flux2.examples.service.Flux2ImageServiceMain --model DIR --port 8080}.
 * The pipeline stays resident between requests; Ctrl-C stops the service and closes the pipeline.
 */
@Command(
        name = "flux2-service",
        mixinStandardHelpOptions = true,
        description = "Serve POST /v1/images (JSON in, PNG out) and GET /health on one shared pipeline.")
public final class Flux2ImageServiceMain implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "DIR", description = "Bundle folder.")
    Path model;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Interface to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "Port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--workers", defaultValue = "1", description = "Concurrent generations (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(
            names = "--queue",
            defaultValue = "4",
            description = "Waiting requests before 429 (default ${DEFAULT-VALUE}).")
    int queue;

    @Option(
            names = "--timeout",
            defaultValue = "300",
            paramLabel = "SECONDS",
            description = "Per-request timeout; the generation is cancelled (default ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--threads", defaultValue = "0", description = "Threads per inference call, 0 = runtime default.")
    int threads;

    @Option(
            names = "--idle-timeout",
            defaultValue = "30",
            paramLabel = "SECONDS",
            description = "Close a connection silent for this long (default ${DEFAULT-VALUE}).")
    int idleTimeoutSeconds;

    @Option(
            names = "--body-timeout",
            defaultValue = "10",
            paramLabel = "SECONDS",
            description = "A request body must arrive within this time, else 408 (default ${DEFAULT-VALUE}).")
    int bodyTimeoutSeconds;

    @Option(
            names = "--max-connections",
            defaultValue = "64",
            description = "Open connections at once (default ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(
            names = "--max-body",
            defaultValue = "65536",
            paramLabel = "BYTES",
            description = "Largest request body; a larger Content-Length is answered 413 (default ${DEFAULT-VALUE}).")
    int maxBody;

    @Mixin
    LimitOptions limitOptions;

    private Flux2ImageServiceMain() {}

    /**
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        System.exit(execute(new PrintWriter(System.err, true), args));
    }

    /**
     * Parses and runs; a refusal (a bad option, a limit out of range, a model that cannot be opened) is one line on
     * {@code err} and the {@code flux2} command line's exit code (2 usage, 3 model).
     *
     * @param err where errors go
     * @param args command-line arguments
     * @return the exit code
     */
    static int execute(PrintWriter err, String... args) {
        ErrorReporter reporter = new ErrorReporter();
        return new CommandLine(new Flux2ImageServiceMain())
                .setErr(err)
                .setExecutionExceptionHandler(reporter)
                .setParameterExceptionHandler(reporter)
                .execute(args);
    }

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        GenerationLimits limits = limitOptions.toLimits();
        // Closed in reverse order on every path, also when the service cannot start (a port in use): the
        // pipeline must be closed before the JVM exits (see below).
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                        .model(model)
                        .limits(limits)
                        .memoryPolicy(MemoryPolicy.RESIDENT)
                        .backendOption("threads", Integer.toString(threads))
                        .build();
                ImageService service = ImageService.start(
                        pipeline,
                        ServiceConfig.builder()
                                .host(host)
                                .port(port)
                                .workers(workers)
                                .queueCapacity(queue)
                                .requestTimeout(Duration.ofSeconds(timeoutSeconds))
                                .modelLabel(pipeline.modelInfo().variant())
                                .idleTimeout(Duration.ofSeconds(idleTimeoutSeconds))
                                .bodyTimeout(Duration.ofSeconds(bodyTimeoutSeconds))
                                .maxConnections(maxConnections)
                                .maxBodyBytes(maxBody)
                                .limits(pipeline.limits())
                                .build())) {
            // Stop on SIGINT/SIGTERM from the main thread, not from a shutdown hook: ONNX Runtime's own shutdown
            // hook releases its native environment concurrently with other hooks, which would abort a generation
            // that a hook is still waiting for. Here the service and the pipeline are closed before the JVM starts
            // to exit.
            for (String name : List.of("INT", "TERM")) {
                Signal.handle(new Signal(name), signal -> stopped.countDown());
            }
            System.out.println("flux2 image service on http://" + host + ":" + service.port()
                    + " (POST /v1/images, GET /health); Ctrl-C stops it");
            stopped.await();
        }
        return 0;
    }
}
