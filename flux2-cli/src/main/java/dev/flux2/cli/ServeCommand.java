package dev.flux2.cli;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * {@code flux2 serve}: runs flux2-server's {@link ImageService} (OpenAI's Images API, the PNG shortcut, health and
 * metrics) on one resident pipeline. Ctrl-C stops the service and closes the pipeline.
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = "Serve OpenAI's Images API (POST /v1/images/generations, /v1/images/edits, GET /v1/models),"
                + " the PNG shortcut POST /v1/images, GET /health and GET /metrics on one shared pipeline.")
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "DIR", description = "Bundle folder.")
    Path model;

    @Option(
            names = "--host",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "Interface to bind (default ${DEFAULT-VALUE}).")
    String host;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "8080",
            description = "Port (default ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--workers",
            paramLabel = "N",
            defaultValue = "1",
            description = "Concurrent generations (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(
            names = "--queue",
            paramLabel = "N",
            defaultValue = "4",
            description = "Waiting requests before 429 (default ${DEFAULT-VALUE}).")
    int queue;

    @Option(
            names = "--timeout",
            defaultValue = "300",
            paramLabel = "SECONDS",
            description = "Per-request timeout; the generation is cancelled (default ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(
            names = "--threads",
            paramLabel = "N",
            defaultValue = "0",
            description = "Threads per inference call, 0 = runtime default.")
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
            paramLabel = "N",
            defaultValue = "64",
            description = "Open connections at once (default ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(
            names = "--max-body",
            defaultValue = "65536",
            paramLabel = "BYTES",
            description = "Largest request body; a larger Content-Length is answered 413 (default ${DEFAULT-VALUE}).")
    int maxBody;

    @Option(
            names = "--max-upload",
            defaultValue = "33554432",
            paramLabel = "BYTES",
            description = "Largest multipart body of /v1/images/edits (default ${DEFAULT-VALUE}).")
    int maxUpload;

    @Option(
            names = "--header-timeout",
            defaultValue = "10",
            paramLabel = "SECONDS",
            description = "The request line and headers must arrive within this time in total (default"
                    + " ${DEFAULT-VALUE}).")
    int headerTimeoutSeconds;

    @Option(
            names = "--api-key-file",
            paramLabel = "FILE",
            description = "File holding the API key clients send as 'Authorization: Bearer KEY' (else FLUX2_API_KEY).")
    Path apiKeyFile;

    @Option(
            names = "--allow-unauthenticated",
            description = "Allow listening on a non-loopback address without an API key.")
    boolean allowUnauthenticated;

    @Option(
            names = "--cors-origin",
            paramLabel = "ORIGIN",
            description = "Answer CORS requests from this origin (e.g. https://app.example); off by default.")
    String corsOrigin;

    @Option(
            names = "--model-name",
            paramLabel = "NAME",
            description = "The model id of GET /v1/models and of the answers (default: flux2-klein-<variant>).")
    String modelName;

    @Option(names = "--strict-model", description = "Refuse requests whose 'model' is not the served model's name.")
    boolean strictModel;

    @Mixin
    LimitOptions limitOptions;

    @Mixin
    ProviderOptions providerOptions;

    ServeCommand() {}

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
        return new CommandLine(new ServeCommand())
                .setErr(err)
                .setExecutionExceptionHandler(reporter)
                .setParameterExceptionHandler(reporter)
                .execute(args);
    }

    @Override
    public Integer call() throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        GenerationLimits limits = limitOptions.toLimits();
        String apiKey = apiKey();
        // Refused before the model loads: a config the server would refuse costs no load.
        ServiceConfig.Builder config = ServiceConfig.builder()
                .host(host)
                .port(port)
                .workers(workers)
                .queueCapacity(queue)
                .requestTimeout(Duration.ofSeconds(timeoutSeconds))
                .idleTimeout(Duration.ofSeconds(idleTimeoutSeconds))
                .bodyTimeout(Duration.ofSeconds(bodyTimeoutSeconds))
                .headerTimeout(Duration.ofSeconds(headerTimeoutSeconds))
                .maxConnections(maxConnections)
                .maxBodyBytes(maxBody)
                .maxUploadBytes(maxUpload)
                .apiKey(apiKey)
                .allowUnauthenticated(allowUnauthenticated)
                .corsOrigin(corsOrigin)
                .strictModel(strictModel)
                .limits(limits);
        config.build();
        // The backend options too: a CUDA setting without --provider cuda is refused before the model loads.
        OnnxOptions onnx =
                providerOptions.applyTo(OnnxOptions.builder()).threads(threads).build();
        // Closed in reverse order on every path, also when the service cannot start (a port in use): the
        // pipeline must be closed before the JVM exits (see below).
        Flux2Pipeline.Builder builder =
                Flux2Pipeline.builder().model(model).limits(limits).memoryPolicy(MemoryPolicy.RESIDENT);
        onnx.asBackendOptions().forEach(builder::backendOption);
        try (Flux2Pipeline pipeline = builder.build();
                ImageService service = ImageService.start(
                        pipeline,
                        config.modelLabel(pipeline.modelInfo().variant())
                                .modelName(
                                        modelName != null
                                                ? modelName
                                                : "flux2-klein-"
                                                        + pipeline.modelInfo().variant())
                                .limits(pipeline.limits())
                                .build())) {
            // Stop on SIGINT/SIGTERM from the main thread, not from a shutdown hook: ONNX Runtime's own shutdown
            // hook releases its native environment concurrently with other hooks, which would abort a generation
            // that a hook is still waiting for. Here the service and the pipeline are closed before the JVM starts
            // to exit.
            for (String name : List.of("INT", "TERM")) {
                Signal.handle(new Signal(name), signal -> stopped.countDown());
            }
            System.out.println("flux2 server on http://" + host + ":" + service.port()
                    + " (POST /v1/images/generations, /v1/images/edits, /v1/images; GET /v1/models, /health,"
                    + " /metrics)" + (apiKey != null ? ", API key required" : "") + "; Ctrl-C stops it");
            stopped.await();
        }
        return 0;
    }

    /** The key from {@code --api-key-file}, else {@code FLUX2_API_KEY}; never printed. */
    private String apiKey() {
        if (apiKeyFile != null) {
            String key;
            try {
                key = Files.readString(apiKeyFile, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "--api-key-file " + apiKeyFile + " cannot be read: "
                                + e.getClass().getSimpleName(),
                        e);
            }
            return ServiceConfig.checkedApiKey(key, "--api-key-file " + apiKeyFile);
        }
        String env = System.getenv("FLUX2_API_KEY");
        return env == null || env.isEmpty() ? null : ServiceConfig.checkedApiKey(env, "FLUX2_API_KEY");
    }
}
