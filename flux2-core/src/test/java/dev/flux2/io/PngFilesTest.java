package dev.flux2.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.StageTimings;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/** The PNG carries the generation parameters; read back with ImageIO's own metadata tree and with PngFiles. */
class PngFilesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static GenerationMetadata metadata(String prompt, OptionalDouble strength, double guidance) {
        return new GenerationMetadata(
                prompt,
                OptionalLong.of(1234567890123L),
                4,
                3,
                32,
                16,
                guidance,
                strength,
                2,
                true,
                7,
                "klein-test",
                new StageTimings(Map.of(), Duration.ZERO, Duration.ZERO));
    }

    private static GeneratedImage image(String prompt, OptionalDouble strength) {
        BufferedImage img = new BufferedImage(32, 16, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                img.setRGB(x, y, (x * 8) << 16 | (y * 16) << 8 | 77);
            }
        }
        return new GeneratedImage(img, metadata(prompt, strength, 1.0));
    }

    @Test
    void writesPixelsAndTextChunks() throws IOException {
        Path file = tmp.resolve("out.png");
        GeneratedImage image = image("a red fox in the snow", OptionalDouble.of(0.75));
        PngFiles.write(image, file);

        BufferedImage back = ImageIO.read(file.toFile());
        assertEquals(32, back.getWidth());
        assertEquals(16, back.getHeight());
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                assertEquals(image.image().getRGB(x, y), back.getRGB(x, y));
            }
        }
        Map<String, String> text = imageIoText(file, "tEXtEntry", "value");
        assertEquals("a red fox in the snow", text.get("prompt"));
        assertEquals("1234567890123", text.get("seed"));
        assertEquals("4", text.get("steps"));
        assertEquals("32", text.get("width"));
        assertEquals("16", text.get("height"));
        assertEquals("1.0", text.get("guidance"));
        assertEquals("0.75", text.get("strength"));
        assertEquals("klein-test", text.get("model_variant"));
        assertEquals("flux2-java", text.get("software"));
        JsonNode params = JSON.readTree(text.get("parameters"));
        assertEquals(1234567890123L, params.get("seed").asLong());
        assertEquals("a red fox in the snow", params.get("prompt").asText());
        assertEquals(3, params.get("steps_run").asInt());
        assertEquals(2, params.get("reference_images").asInt());
        assertTrue(params.get("fused").asBoolean());
        assertEquals(7, params.get("truncated_tokens").asInt());
        try (var s = Files.list(tmp)) {
            assertEquals(1, s.count(), "no temporary file left");
        }
        try (var in = Files.newInputStream(file)) {
            assertEquals(text, PngFiles.readTextEntries(in), "PngFiles reads what ImageIO reads");
        }
    }

    @Test
    void nonLatinPromptGoesIntoAnInternationalTextChunk() throws IOException {
        Path file = tmp.resolve("out.png");
        String prompt = "雪の中のキツネ 🦊";
        PngFiles.write(image(prompt, OptionalDouble.empty()), file);
        Map<String, String> tEXt = imageIoText(file, "tEXtEntry", "value");
        Map<String, String> iTXt = imageIoText(file, "iTXtEntry", "text");
        assertEquals(prompt, iTXt.get("prompt"));
        assertFalse(tEXt.containsKey("prompt"));
        assertFalse(tEXt.containsKey("strength"), "no strength without img2img");
        assertEquals("1234567890123", tEXt.get("seed"));
        assertTrue(iTXt.get("parameters").contains(prompt));
        try (var in = Files.newInputStream(file)) {
            Map<String, String> all = PngFiles.readTextEntries(in);
            assertEquals(prompt, all.get("prompt"));
            assertEquals(iTXt.get("parameters"), all.get("parameters"));
        }
    }

    /** The parameters JSON is byte-for-byte what the former Jackson-based writer produced. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "a red fox",
                "quote \" backslash \\ slash / tab \t newline \n cr \r bell \u0007 nul \u0000 del \u007f",
                "雪の中のキツネ 🦊 \u2028 é",
                ""
            })
    void parametersJsonMatchesJackson(String prompt) {
        for (double guidance : new double[] {1.0, 3.5, 0.1, 1e-7, 4.0E10, 0.1f}) {
            GenerationMetadata m = metadata(prompt, OptionalDouble.of(0.1 + 0.2), guidance);
            ObjectNode all = JSON.createObjectNode();
            all.put("prompt", m.prompt());
            all.put("seed", m.seed().getAsLong());
            all.put("steps", m.steps());
            all.put("steps_run", m.stepsRun());
            all.put("width", m.width());
            all.put("height", m.height());
            all.put("guidance", m.guidance());
            all.put("strength", m.strength().getAsDouble());
            all.put("reference_images", m.referenceCount());
            all.put("fused", m.fused());
            all.put("truncated_tokens", m.truncatedTokens());
            all.put("model_variant", m.modelVariant());
            assertEquals(all.toString(), PngFiles.textEntries(m).get("parameters"));
        }
    }

    @Test
    void encodingIsDeterministic() {
        GeneratedImage image = image("same", OptionalDouble.empty());
        assertArrayEquals(PngFiles.encode(image), PngFiles.encode(image));
    }

    @Test
    void readTextEntriesRejectsTruncatedAndCorruptFiles() {
        byte[] png = PngFiles.encode(image("a fox", OptionalDouble.empty()));
        IOException truncated = assertThrows(
                IOException.class, () -> PngFiles.readTextEntries(new ByteArrayInputStream(png, 0, png.length - 12)));
        assertTrue(truncated.getMessage().contains("truncated PNG"), truncated.getMessage());
        for (int cut : new int[] {0, 5, 8, 20, png.length / 2, png.length - 1}) {
            byte[] head = Arrays.copyOf(png, cut);
            assertThrows(
                    IOException.class, () -> PngFiles.readTextEntries(new ByteArrayInputStream(head)), "cut " + cut);
        }
        byte[] flipped = png.clone();
        flipped[png.length / 2] ^= 0x01;
        IOException crc =
                assertThrows(IOException.class, () -> PngFiles.readTextEntries(new ByteArrayInputStream(flipped)));
        assertTrue(crc.getMessage().contains("CRC"), crc.getMessage());
        byte[] notPng = "GIF89a....".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        IOException signature =
                assertThrows(IOException.class, () -> PngFiles.readTextEntries(new ByteArrayInputStream(notPng)));
        assertTrue(signature.getMessage().contains("signature"), signature.getMessage());
    }

    /** Text entries of one chunk kind through ImageIO's native PNG metadata tree (independent of PngFiles). */
    private static Map<String, String> imageIoText(Path png, String entryName, String valueAttribute)
            throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (ImageInputStream in = ImageIO.createImageInputStream(png.toFile())) {
            ImageReader reader = ImageIO.getImageReaders(in).next();
            try {
                reader.setInput(in);
                Node root = reader.getImageMetadata(0).getAsTree("javax_imageio_png_1.0");
                for (Node chunk = root.getFirstChild(); chunk != null; chunk = chunk.getNextSibling()) {
                    for (Node e = chunk.getFirstChild(); e != null; e = e.getNextSibling()) {
                        if (entryName.equals(e.getNodeName())) {
                            NamedNodeMap a = e.getAttributes();
                            out.put(
                                    a.getNamedItem("keyword").getNodeValue(),
                                    a.getNamedItem(valueAttribute).getNodeValue());
                        }
                    }
                }
            } finally {
                reader.dispose();
            }
        }
        return out;
    }
}
