package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenAI's image streaming through the official clients, unmodified, against the server on a real pipeline over a
 * synthetic bundle: {@code client.images.generate(..., stream=True, partial_images=2)} and a streamed multipart edit
 * with the {@code openai} package for Python and for Node. Each stream has its partial images (indexed 0, 1, of the
 * requested size) and a completed image whose pixels equal the pipeline's for the same request. As for
 * {@link OpenAiClientsIT}, the test command contacts no registry: the Python package is used from a virtual
 * environment in target/pip, which {@code -Dflux2.server.pip=true} creates with pip first; the Node package from
 * target/npm ({@code -Dflux2.server.npm=true}). Each client's test is skipped when it is unavailable.
 */
class OpenAiStreamingClientsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-flux2-stream-key";
    private static final String PROMPT = "a lighthouse at dusk";

    @TempDir
    static Path work;

    static Flux2Pipeline pipeline;
    static ImageService service;
    static BufferedImage init;
    static Path initFile;

    @BeforeAll
    static void start() throws IOException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        pipeline = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .build();
        service = ImageService.start(
                pipeline,
                ServiceConfig.builder()
                        .port(0)
                        .apiKey(KEY)
                        .modelName("flux2-klein")
                        .requestTimeout(Duration.ofSeconds(60))
                        .limits(pipeline.limits())
                        .build());
        init = pipeline.generate(
                        GenerationRequest.builder("a cat").size(64, 64).seed(8).build())
                .first()
                .image();
        initFile = work.resolve("init.png");
        ImageIO.write(init, "png", initFile.toFile());
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    private static String baseUrl() {
        return "http://127.0.0.1:" + service.port() + "/v1";
    }

    @Test
    void thePythonClientStreamsPartialAndFinalImages() throws Exception {
        Path venv = Path.of(System.getProperty("flux2.server.pip.dir", "target/pip"));
        Path python = venv.resolve("bin/python");
        Assumptions.assumeTrue(
                pythonPackage(venv),
                "no virtual environment with the openai package in " + venv
                        + " (-Dflux2.server.pip=true creates it) or python3 is missing");
        Path script = copy("openai_stream.py");
        String out = run(
                work, python.toString(), script.toString(), baseUrl(), KEY, PROMPT, "48x32", "21", initFile.toString());
        check(JSON.readTree(out.lines().reduce((a, b) -> b).orElse("{}")));
    }

    @Test
    void theNodeClientStreamsPartialAndFinalImages() throws Exception {
        Path modules = Path.of(System.getProperty("flux2.server.npm.dir", "target/npm"));
        Assumptions.assumeTrue(
                Files.isRegularFile(modules.resolve("node_modules/openai/package.json")) && works(work, "node"),
                "the openai package is not in " + modules + " (-Dflux2.server.npm=true installs it with"
                        + " OpenAiClientsIT) or node is missing");
        Path script = copy("openai-stream.mjs");
        String out = run(
                work,
                "node",
                script.toString(),
                baseUrl(),
                KEY,
                PROMPT,
                "48x32",
                "21",
                initFile.toString(),
                modules.toAbsolutePath().toString());
        check(JSON.readTree(out.lines().reduce((a, b) -> b).orElse("{}")));
    }

    private static void check(JsonNode answer) throws IOException {
        JsonNode generated = answer.get("generated");
        assertEquals(
                List.of(
                        "image_generation.partial_image",
                        "image_generation.partial_image",
                        "image_generation.completed"),
                types(generated));
        assertEquals(0, generated.get(0).get("index").asInt());
        assertEquals(1, generated.get(1).get("index").asInt());
        for (JsonNode event : generated) {
            assertEquals("48x32", event.get("size").asText());
            assertEquals("png", event.get("format").asText());
            BufferedImage image = decode(event.get("b64").asText());
            assertEquals(48, image.getWidth());
            assertEquals(32, image.getHeight());
        }
        assertEquals(6, generated.get(2).get("usage").get("output_tokens").asInt());
        assertSamePixels(
                pipeline.generate(GenerationRequest.builder(PROMPT)
                                .size(48, 32)
                                .seed(21)
                                .steps(4)
                                .build())
                        .first()
                        .image(),
                decode(generated.get(2).get("b64").asText()));

        JsonNode edited = answer.get("edited");
        assertEquals(List.of("image_edit.partial_image", "image_edit.completed"), types(edited));
        assertSamePixels(
                pipeline.generate(GenerationRequest.builder(PROMPT)
                                .size(48, 32)
                                .seed(21)
                                .steps(4)
                                .addReferenceImage(init)
                                .build())
                        .first()
                        .image(),
                decode(edited.get(1).get("b64").asText()));
    }

    private static List<String> types(JsonNode events) {
        List<String> types = new ArrayList<>();
        events.forEach(e -> types.add(e.get("type").asText()));
        return types;
    }

    private static Path copy(String resource) throws IOException {
        Path script = work.resolve(resource);
        if (!Files.exists(script)) {
            try (InputStream in = OpenAiStreamingClientsIT.class.getResourceAsStream(resource)) {
                Files.copy(in, script);
            }
        }
        return script;
    }

    /** A virtual environment with the openai package, created once when allowed; false when unavailable. */
    private static boolean pythonPackage(Path venv) {
        Path python = venv.resolve("bin/python");
        if (Files.isExecutable(python) && works(work, python.toString(), "-c", "import openai")) {
            return true;
        }
        if (!Boolean.getBoolean("flux2.server.pip")) {
            return false;
        }
        try {
            run(work, "python3", "-m", "venv", venv.toAbsolutePath().toString());
            run(work, python.toString(), "-m", "pip", "install", "--quiet", "openai");
            return works(work, python.toString(), "-c", "import openai");
        } catch (IOException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean works(Path dir, String... command) {
        try {
            List<String> c = new ArrayList<>(List.of(command));
            if (c.size() == 1) {
                c.add("--version");
            }
            run(dir, c.toArray(String[]::new));
            return true;
        } catch (IOException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static BufferedImage decode(String b64) throws IOException {
        return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(b64)));
    }

    private static void assertSamePixels(BufferedImage expected, BufferedImage actual) {
        assertEquals(expected.getWidth(), actual.getWidth());
        assertEquals(expected.getHeight(), actual.getHeight());
        for (int y = 0; y < expected.getHeight(); y++) {
            for (int x = 0; x < expected.getWidth(); x++) {
                assertEquals(expected.getRGB(x, y), actual.getRGB(x, y), "pixel " + x + "," + y);
            }
        }
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        byte[] output;
        try (InputStream in = p.getInputStream()) {
            output = in.readAllBytes();
        }
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command[0] + " did not finish within 300 s");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }
}
