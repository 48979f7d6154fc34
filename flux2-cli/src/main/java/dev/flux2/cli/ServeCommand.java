package dev.flux2.cli;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.server.BoundPort;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.io.InputStream;
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
    /** The largest {@code --api-key-file}: a key is a line, not a file of megabytes. */
    static final int MAX_KEY_FILE_BYTES = 4096;

    @Mixin
    ModelOption modelOption;

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
            description =
                    "Concurrent generations, at most " + ServiceConfig.MAX_WORKERS + " (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(
            names = "--queue",
            paramLabel = "N",
            defaultValue = "4",
            description = "Waiting requests before 429, at most " + ServiceConfig.MAX_QUEUE_CAPACITY
                    + " (default ${DEFAULT-VALUE}).")
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
            description = "Open connections at once, at most " + ServiceConfig.MAX_CONNECTIONS
                    + " (default ${DEFAULT-VALUE}).")
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
            description = "The model id of GET /v1/models and of the answers (default: flux2-klein-<variant>, e.g."
                    + " flux2-klein-4b-distilled-onnx-webgpu-q4).")
    String modelName;

    @Option(names = "--strict-model", description = "Refuse requests whose 'model' is not the served model's name.")
    boolean strictModel;

    @Option(
            names = "--no-ui",
            description = "Do not serve the playground page at GET / (a prompt box with live partial images over this"
                    + " server's own API).")
    boolean noUi;

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
                .ui(!noUi)
                .limits(limits);
        ServiceConfig checked = config.build();
        // The backend options too: a CUDA setting without --provider cuda is refused before the model loads.
        OnnxOptions onnx =
                providerOptions.applyTo(OnnxOptions.builder()).threads(threads).build();
        // Bound before the model loads: a busy port or an address that is not this machine's is reported in
        // milliseconds, with its reason. All closed in reverse order on every path: the pipeline must be closed
        // before the JVM exits (see below).
        try (BoundPort socket = BoundPort.bind(checked.address());
                Flux2Pipeline pipeline = pipeline(limits, onnx);
                ImageService service = ImageService.start(
                        pipeline,
                        config.modelLabel(pipeline.modelInfo().variant())
                                .modelName(
                                        modelName != null
                                                ? modelName
                                                : ServiceConfig.modelId(
                                                        pipeline.modelInfo().variant()))
                                .limits(pipeline.limits())
                                .build(),
                        socket)) {
            // Stop on SIGINT/SIGTERM from the main thread, not from a shutdown hook: ONNX Runtime's own shutdown
            // hook releases its native environment concurrently with other hooks, which would abort a generation
            // that a hook is still waiting for. Here the service and the pipeline are closed before the JVM starts
            // to exit.
            for (String name : List.of("INT", "TERM")) {
                Signal.handle(new Signal(name), signal -> stopped.countDown());
            }
            System.out.println("flux2 server on http://" + host + ":" + service.port()
                    + " (POST /v1/images/generations, /v1/images/edits, /v1/images; GET /v1/models, /health,"
                    + " /metrics; the OpenAI paths also without /v1)" + (apiKey != null ? ", API key required" : "")
                    + "; Ctrl-C stops it");
            stopped.await();
        }
        return 0;
    }

    /** The model by folder or repo id, as {@code flux2 generate} takes it (the pinned default without one). */
    private Flux2Pipeline pipeline(GenerationLimits limits, OnnxOptions onnx) {
        Flux2Pipeline.Builder builder = Flux2Pipeline.builder()
                .model(modelOption.resolve(true))
                .limits(limits)
                .memoryPolicy(MemoryPolicy.RESIDENT);
        onnx.asBackendOptions().forEach(builder::backendOption);
        return builder.build();
    }

    /** The key from {@code --api-key-file}, else {@code FLUX2_API_KEY}; never printed. */
    private String apiKey() {
        if (apiKeyFile != null) {
            return ServiceConfig.checkedApiKey(readKeyFile(apiKeyFile), "--api-key-file " + apiKeyFile);
        }
        String env = System.getenv("FLUX2_API_KEY");
        return env == null || env.isEmpty() ? null : ServiceConfig.checkedApiKey(env, "FLUX2_API_KEY");
    }

    /**
     * Reads a key file: a regular file (a FIFO would block the launcher until a writer comes, a device might never
     * end) of at most {@value #MAX_KEY_FILE_BYTES} bytes, read no further than that.
     */
    static String readKeyFile(Path file) {
        String name = "--api-key-file " + file;
        java.util.Optional<String> notRegular = ModelFiles.notRegular(file);
        if (notRegular.isPresent()) {
            throw new IllegalArgumentException(name + " " + notRegular.get());
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_KEY_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    name + " cannot be read: "
                            + (e.getMessage() != null
                                    ? e.getClass().getSimpleName() + " " + e.getMessage()
                                    : e.getClass().getSimpleName()),
                    e);
        }
        if (bytes.length > MAX_KEY_FILE_BYTES) {
            throw new IllegalArgumentException(name + " is larger than " + MAX_KEY_FILE_BYTES + " bytes: not a key"
                    + " file (it holds one key on one line)");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
