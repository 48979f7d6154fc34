package dev.flux2.examples.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.StageTimings;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PNG carries the generation parameters; read back with ImageIO's own metadata tree. */
class PngMetadataWriterTest {
    @TempDir
    Path tmp;

    private static GeneratedImage image(String prompt, OptionalDouble strength) {
        BufferedImage img = new BufferedImage(32, 16, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                img.setRGB(x, y, (x * 8) << 16 | (y * 16) << 8 | 77);
            }
        }
        GenerationMetadata m = new GenerationMetadata(
                prompt,
                OptionalLong.of(1234567890123L),
                4,
                4,
                32,
                16,
                1.0f,
                strength,
                0,
                false,
                0,
                "klein-test",
                new StageTimings(Map.of(), Duration.ZERO, Duration.ZERO));
        return new GeneratedImage(img, m);
    }

    @Test
    void writesPixelsAndTextChunks() throws IOException {
        Path file = tmp.resolve("out.png");
        GeneratedImage image = image("a red fox in the snow", OptionalDouble.of(0.75));
        PngMetadataWriter.write(image, file);

        BufferedImage back = ImageIO.read(file.toFile());
        assertEquals(32, back.getWidth());
        assertEquals(16, back.getHeight());
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                assertEquals(image.image().getRGB(x, y), back.getRGB(x, y));
            }
        }
        PngText text = PngText.read(file);
        assertEquals("a red fox in the snow", text.tEXt().get("prompt"));
        assertEquals("1234567890123", text.tEXt().get("seed"));
        assertEquals("4", text.tEXt().get("steps"));
        assertEquals("32", text.tEXt().get("width"));
        assertEquals("16", text.tEXt().get("height"));
        assertEquals("1.0", text.tEXt().get("guidance"));
        assertEquals("0.75", text.tEXt().get("strength"));
        assertEquals("klein-test", text.tEXt().get("model_variant"));
        JsonNode params = new ObjectMapper().readTree(text.tEXt().get("parameters"));
        assertEquals(1234567890123L, params.get("seed").asLong());
        assertEquals("a red fox in the snow", params.get("prompt").asText());
        try (var s = Files.list(tmp)) {
            assertEquals(1, s.count(), "no temporary file left");
        }
    }

    @Test
    void nonLatinPromptGoesIntoAnInternationalTextChunk() throws IOException {
        Path file = tmp.resolve("out.png");
        String prompt = "雪の中のキツネ 🦊";
        PngMetadataWriter.write(image(prompt, OptionalDouble.empty()), file);
        PngText text = PngText.read(file);
        assertEquals(prompt, text.iTXt().get("prompt"));
        assertFalse(text.tEXt().containsKey("prompt"));
        assertFalse(text.tEXt().containsKey("strength"), "no strength without img2img");
        assertEquals("1234567890123", text.tEXt().get("seed"));
        assertTrue(text.iTXt().get("parameters").contains(prompt));
    }
}
