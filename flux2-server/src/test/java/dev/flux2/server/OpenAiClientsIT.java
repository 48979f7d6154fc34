package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.model.openai.OpenAiImageModel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified OpenAI clients against the server on a real pipeline over a synthetic bundle: LangChain4j's
 * {@code OpenAiImageModel} and the official {@code openai} package for Node, given only the base URL and a key,
 * generate and edit; the images equal the pipeline's (what {@code flux2 generate} runs) for the same prompt, seed,
 * size and steps. The Node client is used from target/npm; {@code -Dflux2.server.npm=true} installs it there with
 * npm first (the test command itself contacts no registry). The Node test is skipped when node or the package is
 * unavailable.
 */
class OpenAiClientsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-flux2-test-key";

    @TempDir
    static Path work;

    static Flux2Pipeline pipeline;
    static ImageService service;

    @BeforeAll
    static void start() {
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

    private static BufferedImage decode(String b64) throws IOException {
        return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(b64)));
    }

    private static long seedOf(String b64) throws IOException {
        return Long.parseLong(dev.flux2.api.PngFiles.readTextEntries(
                        new ByteArrayInputStream(Base64.getDecoder().decode(b64)))
                .get("seed"));
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

    @Test
    void langChain4jGeneratesAndEditsThePipelinesImages() throws Exception {
        OpenAiImageModel model = OpenAiImageModel.builder()
                .baseUrl(baseUrl())
                .apiKey(KEY)
                .modelName("flux2-klein")
                .size("64x48")
                .maxRetries(0)
                .timeout(Duration.ofSeconds(60))
                .build();
        Image generated = model.generate("a red fox in the snow").content();
        // LangChain4j sends no seed: the server picked one and wrote it into the PNG's parameter chunks.
        long seed = seedOf(generated.base64Data());
        // Drawn as the CLI draws them, in [0, 2^32): exact in JavaScript's and jq's doubles.
        assertTrue(seed >= 0 && seed < (1L << 32), "drawn seed " + seed);
        BufferedImage expected = pipeline.generate(GenerationRequest.builder("a red fox in the snow")
                        .size(64, 48)
                        .seed(seed)
                        .build())
                .first()
                .image();
        assertSamePixels(expected, decode(generated.base64Data()));

        BufferedImage reference = pipeline.generate(
                        GenerationRequest.builder("a cat").size(64, 64).seed(5).build())
                .first()
                .image();
        java.io.ByteArrayOutputStream png = new java.io.ByteArrayOutputStream();
        ImageIO.write(reference, "png", png);
        Image init = Image.builder()
                .base64Data(Base64.getEncoder().encodeToString(png.toByteArray()))
                .mimeType("image/png")
                .build();
        Image edited = model.edit(init, "the cat in a hat").content();
        long editSeed = seedOf(edited.base64Data());
        BufferedImage expectedEdit = pipeline.generate(GenerationRequest.builder("the cat in a hat")
                        .size(64, 48)
                        .seed(editSeed)
                        .addReferenceImage(reference)
                        .build())
                .first()
                .image();
        assertSamePixels(expectedEdit, decode(edited.base64Data()));

        OpenAiImageModel wrongKey = OpenAiImageModel.builder()
                .baseUrl(baseUrl())
                .apiKey("sk-wrong")
                .maxRetries(0)
                .build();
        RuntimeException refused = assertThrows(RuntimeException.class, () -> wrongKey.generate("x"));
        assertTrue(refused.getMessage().contains("incorrect API key"), refused.getMessage());
    }

    @Test
    void theOfficialNodeClientGeneratesAndEditsThePipelinesImages() throws Exception {
        Path modules = Path.of(System.getProperty("flux2.server.npm.dir", "target/npm"));
        Assumptions.assumeTrue(
                npmPackage(modules),
                "the openai package is not in " + modules
                        + " (-Dflux2.server.npm=true installs it) or node/npm is missing");
        Path script = work.resolve("openai-client.mjs");
        try (InputStream in = OpenAiClientsIT.class.getResourceAsStream("openai-client.mjs")) {
            Files.copy(in, script);
        }
        BufferedImage reference = pipeline.generate(
                        GenerationRequest.builder("a cat").size(64, 64).seed(8).build())
                .first()
                .image();
        Path init = work.resolve("init.png");
        ImageIO.write(reference, "png", init.toFile());
        String out = run(
                work,
                "node",
                script.toString(),
                baseUrl(),
                KEY,
                "a lighthouse at dusk",
                "48x32",
                "21",
                init.toString(),
                modules.toAbsolutePath().toString());
        JsonNode answer = JSON.readTree(out.lines().reduce((a, b) -> b).orElse("{}"));
        assertEquals(21, answer.get("generatedSeed").asLong());
        assertSamePixels(
                pipeline.generate(GenerationRequest.builder("a lighthouse at dusk")
                                .size(48, 32)
                                .seed(21)
                                .build())
                        .first()
                        .image(),
                decode(answer.get("generated").asText()));
        assertSamePixels(
                pipeline.generate(GenerationRequest.builder("a lighthouse at dusk")
                                .size(48, 32)
                                .seed(21)
                                .addReferenceImage(reference)
                                .build())
                        .first()
                        .image(),
                decode(answer.get("edited").asText()));
        JsonNode refused = answer.get("refused");
        assertEquals(400, refused.get("status").asInt(), refused.toString());
        assertEquals("invalid_request_error", refused.get("type").asText());
        assertTrue(refused.get("message").asText().contains("multiple of 16"), refused.toString());
    }

    /** Installs the openai package into {@code dir} once (npm, bounded); false when that cannot be done. */
    private static boolean npmPackage(Path dir) {
        if (Files.isRegularFile(dir.resolve("node_modules/openai/package.json"))) {
            return hasNode();
        }
        if (!Boolean.getBoolean("flux2.server.npm")) {
            return false;
        }
        try {
            Files.createDirectories(dir);
            run(dir, "npm", "install", "--no-audit", "--no-fund", "--silent", "openai@5");
            return Files.isRegularFile(dir.resolve("node_modules/openai/package.json"));
        } catch (IOException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static boolean hasNode() {
        try {
            run(work, "node", "--version");
            return true;
        } catch (IOException | IllegalStateException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
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
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command[0] + " did not finish within 120 s");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(command[0] + " exited " + p.exitValue() + ": " + text);
        }
        return text;
    }
}
