package dev.flux2.springai.autoconfigure;

import static dev.flux2.springai.TestModels.assertSamePixels;
import static dev.flux2.springai.TestModels.decode;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flux2.api.GenerationRequest;
import dev.flux2.springai.TestModels;
import java.awt.image.BufferedImage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.content.Media;
import org.springframework.ai.image.ImageMessage;
import org.springframework.ai.image.ImageModel;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.ai.image.ImageResponse;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.MimeTypeUtils;

/**
 * A Spring Boot application that only adds the dependency and a few properties, generating and editing through the
 * auto-configured {@link ImageModel}; the images are those of {@code Flux2Pipeline.generate} for the same request
 * (which {@code flux2 generate} gives too: {@code Flux2ImageModelTest} compares the model's with the CLI's).
 */
@SpringBootTest(
        classes = Flux2SpringBootApplicationTest.App.class,
        properties = {
            "spring.main.banner-mode=off",
            "spring.ai.model.image=flux2",
            "spring.ai.flux2.image.options.width=32",
            "spring.ai.flux2.image.options.height=48",
            "spring.ai.flux2.image.options.steps=2",
            "spring.ai.flux2.image.options.seed=42"
        })
class Flux2SpringBootApplicationTest {
    /** The application: nothing but auto-configuration. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry registry) {
        registry.add(
                "spring.ai.flux2.image.model",
                () -> TestModels.bundle().directory().toString());
    }

    @Autowired
    ImageModel imageModel;

    @Test
    void generatesAndEditsThroughTheAutoConfiguredImageModel() {
        ImageResponse generated = imageModel.call(new ImagePrompt("a lighthouse at dusk"));
        BufferedImage image = decode(generated.getResult());
        assertSamePixels(
                TestModels.direct()
                        .generate(GenerationRequest.builder("a lighthouse at dusk")
                                .size(32, 48)
                                .steps(2)
                                .seed(42)
                                .build())
                        .first()
                        .image(),
                image,
                "generate");
        BufferedImage reference = TestModels.direct()
                .generate(
                        GenerationRequest.builder("a boat").seed(3).size(64, 64).build())
                .first()
                .image();
        ImageResponse edited = imageModel.call(new ImagePrompt(List.of(new ImageMessage(
                "the boat at night",
                null,
                List.of(Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data(TestModels.png(reference))
                        .build()),
                Map.of()))));
        assertEquals(1, edited.getResults().size());
        assertSamePixels(
                TestModels.direct()
                        .generate(GenerationRequest.builder("the boat at night")
                                .size(32, 48)
                                .steps(2)
                                .seed(42)
                                .addReferenceImage(reference)
                                .build())
                        .first()
                        .image(),
                decode(edited.getResult()),
                "edit");
    }
}
