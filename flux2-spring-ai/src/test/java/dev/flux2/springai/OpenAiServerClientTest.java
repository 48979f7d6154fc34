package dev.flux2.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PngFiles;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.image.ImageGeneration;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.ai.image.ImageResponse;
import org.springframework.ai.openai.OpenAiImageModel;
import org.springframework.ai.openai.OpenAiImageOptions;

/**
 * Spring AI's own {@code OpenAiImageModel} (spring-ai-openai, on the official openai-java SDK), unmodified, against
 * flux2-server on loopback, configured as docs/server.md says: the base URL without {@code /v1}
 * ({@code spring.ai.openai.base-url=http://localhost:8080}; the SDK then posts to {@code /images/generations}) and
 * with it. The images equal the pipeline's for the seed the server drew.
 */
class OpenAiServerClientTest {
    private static final String KEY = "sk-flux2-spring-test";

    static Flux2Pipeline pipeline;
    static ImageService service;

    @BeforeAll
    static void start() {
        pipeline = Flux2Pipeline.builder()
                .model(TestModels.bundle().directory())
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

    private static OpenAiImageModel model(String baseUrl, String key) {
        return new OpenAiImageModel(OpenAiImageOptions.builder()
                .baseUrl(baseUrl)
                .apiKey(key)
                .model("flux2-klein")
                .responseFormat("b64_json")
                .maxRetries(0)
                .timeout(Duration.ofSeconds(60))
                .build());
    }

    private static void assertPipelinesImage(String prompt, int w, int h, ImageGeneration generation) throws Exception {
        byte[] png = Base64.getDecoder().decode(generation.getOutput().getB64Json());
        // No seed is sent: the server drew one, in [0, 2^32), and wrote it into the PNG's parameter chunks.
        long seed = Long.parseLong(
                PngFiles.readTextEntries(new ByteArrayInputStream(png)).get("seed"));
        assertTrue(seed >= 0 && seed < (1L << 32), "drawn seed " + seed);
        BufferedImage actual = ImageIO.read(new ByteArrayInputStream(png));
        BufferedImage expected = pipeline.generate(
                        GenerationRequest.builder(prompt).size(w, h).seed(seed).build())
                .first()
                .image();
        assertEquals(w, actual.getWidth());
        assertEquals(h, actual.getHeight());
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                assertEquals(expected.getRGB(x, y), actual.getRGB(x, y), "pixel " + x + "," + y);
            }
        }
    }

    @Test
    void theBaseUrlOfTheDocsWithoutV1Generates() throws Exception {
        // docs/server.md: spring.ai.openai.base-url=http://localhost:8080 (the SDK posts to /images/generations).
        OpenAiImageModel model = model("http://localhost:" + service.port(), KEY);
        ImageResponse response = model.call(new ImagePrompt(
                "a red fox in the snow",
                OpenAiImageOptions.builder().size("64x48").build()));
        List<ImageGeneration> results = response.getResults();
        assertEquals(1, results.size());
        assertPipelinesImage("a red fox in the snow", 64, 48, results.get(0));
    }

    @Test
    void theBaseUrlWithV1GeneratesTwoImages() throws Exception {
        OpenAiImageModel model = model("http://127.0.0.1:" + service.port() + "/v1", KEY);
        ImageResponse response = model.call(new ImagePrompt(
                "a lighthouse",
                OpenAiImageOptions.builder().width(48).height(32).n(2).build()));
        assertEquals(2, response.getResults().size());
        assertPipelinesImage("a lighthouse", 48, 32, response.getResults().get(0));
    }

    @Test
    void aRefusalReachesTheCallerWithTheServersMessage() {
        OpenAiImageModel wrongKey = model("http://localhost:" + service.port(), "sk-wrong");
        RuntimeException refused = assertThrows(RuntimeException.class, () -> wrongKey.call(new ImagePrompt("x")));
        assertTrue(String.valueOf(refused.getMessage()).contains("incorrect API key"), String.valueOf(refused));
        OpenAiImageModel model = model("http://localhost:" + service.port(), KEY);
        RuntimeException badSize = assertThrows(
                RuntimeException.class,
                () -> model.call(new ImagePrompt(
                        "x", OpenAiImageOptions.builder().size("50x50").build())));
        assertTrue(String.valueOf(badSize.getMessage()).contains("multiple of 16"), String.valueOf(badSize));
    }
}
