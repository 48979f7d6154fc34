package dev.flux2.examples.embedding;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;

/**
 * The HTTP image service inside an application: one RESIDENT pipeline shared by the service's workers, the OpenAI
 * routes ({@code POST /v1/images/generations}, …) and {@code GET /health} on loopback (docs/server.md). It serves
 * until standard input ends (Ctrl-D) and then closes the service before the pipeline. Run:
 * {@code java -cp CLASSPATH dev.flux2.examples.embedding.ServerExample MODEL_DIR [PORT]} (port 0 picks a free one).
 */
public final class ServerExample {
    private ServerExample() {}

    /**
     * @param args model folder or repo id[@revision], optionally the port (default 8080)
     * @throws IOException when standard input cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: ServerExample MODEL_DIR [PORT]");
            System.exit(2);
        }
        serve(args[0], args.length == 2 ? Integer.parseInt(args[1]) : 8080, System.in, System.out);
    }

    /**
     * Serves the model until {@code until} ends.
     *
     * @param model model folder or repo id[@revision]
     * @param port the port, 0 for a free one
     * @param until served until this stream ends
     * @param out where the address is printed
     * @throws IOException when {@code until} cannot be read
     */
    public static void serve(String model, int port, InputStream until, PrintStream out) throws IOException {
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                        .model(model)
                        .memoryPolicy(MemoryPolicy.RESIDENT)
                        .build();
                ImageService service = ImageService.start(
                        pipeline,
                        ServiceConfig.builder()
                                .port(port)
                                .modelLabel(pipeline.modelInfo().variant())
                                .build())) {
            out.println("serving http://127.0.0.1:" + service.port() + "/v1/images/generations");
            out.flush();
            while (until.read() >= 0) {
                // Serves until the stream ends.
            }
        }
    }
}
