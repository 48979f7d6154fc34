package dev.flux2.springai.starter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.springai.Flux2ImageModel;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.springframework.ai.image.ImageModel;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * An application whose only FLUX.2 dependency is the starter (so Spring Boot's Logback, the ONNX backend and the
 * auto-configuration as a user gets them) generating through the auto-configured {@link ImageModel}, the image equal
 * to the shared pipeline's own for the same request.
 */
@SpringBootTest(
        classes = StarterApplicationTest.App.class,
        properties = {
            "spring.main.banner-mode=off",
            "spring.ai.model.image=flux2",
            "spring.ai.flux2.image.options.width=32",
            "spring.ai.flux2.image.options.height=48",
            "spring.ai.flux2.image.options.steps=2",
            "spring.ai.flux2.image.options.seed=42"
        })
class StarterApplicationTest {
    /** The application: nothing but auto-configuration. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry registry) throws IOException {
        Files.createDirectories(Path.of("target"));
        Path dir = Files.createTempDirectory(Path.of("target"), "bundle-");
        Path bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir.resolve("bundle"))
                .directory();
        registry.add("spring.ai.flux2.image.model", bundle::toString);
    }

    @Autowired
    ImageModel imageModel;

    @Autowired
    Flux2Pipeline pipeline;

    @Test
    void generatesThroughTheAutoConfiguredImageModel() throws IOException {
        assertInstanceOf(Flux2ImageModel.class, imageModel);
        String b64 = imageModel
                .call(new ImagePrompt("a lighthouse at dusk"))
                .getResult()
                .getOutput()
                .getB64Json();
        BufferedImage image =
                ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(b64)));
        BufferedImage expected = pipeline.generate(GenerationRequest.builder("a lighthouse at dusk")
                        .size(32, 48)
                        .steps(2)
                        .seed(42)
                        .build())
                .first()
                .image();
        assertEquals(32, image.getWidth());
        assertEquals(48, image.getHeight());
        assertArrayEquals(expected.getRGB(0, 0, 32, 48, null, 0, 32), image.getRGB(0, 0, 32, 48, null, 0, 32));
    }
}
