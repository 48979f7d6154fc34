package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.cli.testing.ExpectedGeneration;
import dev.flux2.cli.testing.ImageComparison;
import dev.flux2.testkit.BundleVariant;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded CLI as a separate process on models in other layouts than MarkShark2's: hlhc's export (no
 * {@code flux2-config.json}; text-to-image, img2img and reference images) and a composed model
 * ({@code --component}), each PNG compared with the independent computation; {@code flux2 info} on both, as text and
 * JSON; a bad {@code --component}.
 */
class LayoutsCliIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path work;

    private static SyntheticBundle hlhc;
    private static SyntheticBundle markshark;

    @BeforeAll
    static void writeBundles() {
        hlhc = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .hlhcLayout()
                        .variant(BundleVariant.UNKNOWN_CONFIG_JSON)
                        .build(),
                work.resolve("hlhc"));
        markshark = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("markshark2"));
    }

    private static BufferedImage generate(String name, String... args) throws Exception {
        Path png = work.resolve(name + ".png");
        List<String> all = new ArrayList<>(List.of("generate", "--output", png.toString(), "--no-progress"));
        all.addAll(List.of(args));
        CliProcess.Result r = CliProcess.run(work, all.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r.toString());
        return ImageIO.read(png.toFile());
    }

    private static void assertMatches(BufferedImage image, int[] expected, String what) {
        assertTrue(ImageComparison.channelStdDev(expected) > 10, what + ": the expected image is not flat");
        ImageComparison diff = ImageComparison.of(image, expected);
        // docs/bundle-format.md §15 and the onnx tests' ImageComparison: at most one level, rarely.
        assertTrue(diff.maxAbs() <= 1 && diff.meanAbs() < 0.05, what + ": " + diff);
    }

    private static Path testImage(String name, int width, int height, int phase) throws IOException {
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = (int) (127.5 + 127.5 * Math.sin((x + phase) * 0.21));
                int g = (int) (127.5 + 127.5 * Math.cos((y - phase) * 0.17));
                int b = (x * 7 + y * 3 + phase * 13) & 0xFF;
                img.setRGB(x, y, (r << 16) | (g << 8) | b);
            }
        }
        Path file = work.resolve(name + ".png");
        ImageIO.write(img, "png", file.toFile());
        return file;
    }

    @Test
    void hlhcTextToImageImg2ImgAndReferences() throws Exception {
        String model = hlhc.directory().toString();
        ExpectedGeneration expected = ExpectedGeneration.of(hlhc);
        BufferedImage t2i =
                generate("hlhc-t2i", "--model", model, "--prompt", PROMPT, "--seed", "42", "-W", "64", "-H", "48");
        assertMatches(t2i, expected.textToImage(PROMPT, 42, 64, 48), "hlhc text-to-image");

        Path init = testImage("init", 48, 64, 4);
        BufferedImage i2i = generate(
                "hlhc-i2i",
                "--model",
                model,
                "--prompt",
                PROMPT,
                "--seed",
                "8",
                "--init-image",
                init.toString(),
                "--strength",
                "0.6");
        assertMatches(i2i, expected.imageToImage(PROMPT, 8, ImageIO.read(init.toFile()), 0.6), "hlhc img2img");

        Path reference = testImage("reference", 64, 64, 9);
        BufferedImage refs = generate(
                "hlhc-refs",
                "--model",
                model,
                "--prompt",
                PROMPT,
                "--seed",
                "3",
                "-W",
                "32",
                "-H",
                "48",
                "--reference",
                reference.toString());
        assertMatches(
                refs,
                expected.withReferences(PROMPT, 3, 32, 48, ImageIO.read(reference.toFile())),
                "hlhc reference image");
    }

    @Test
    void composedModelByComponent() throws Exception {
        BufferedImage image = generate(
                "composed",
                "--model",
                markshark.directory().toString(),
                "--component",
                "denoiser=" + hlhc.graphFile("transformer"),
                "--prompt",
                PROMPT,
                "--seed",
                "5",
                "-W",
                "48",
                "-H",
                "48");
        ExpectedGeneration expected = new ExpectedGeneration(
                markshark.reference(), hlhc.reference(), markshark.reference(), markshark.tokenizerDirectory());
        assertMatches(image, expected.textToImage(PROMPT, 5, 48, 48), "MarkShark2 with hlhc's transformer");

        // img2img with a reference image on the same composition.
        Path init = testImage("composed-init", 64, 32, 6);
        Path reference = testImage("composed-reference", 64, 64, 1);
        BufferedImage edited = generate(
                "composed-edit",
                "--model",
                markshark.directory().toString(),
                "--component",
                "denoiser=" + hlhc.graphFile("transformer"),
                "--prompt",
                PROMPT,
                "--seed",
                "6",
                "--init-image",
                init.toString(),
                "--strength",
                "0.75",
                "--reference",
                reference.toString());
        assertMatches(
                edited,
                expected.imageToImage(PROMPT, 6, ImageIO.read(init.toFile()), 0.75, ImageIO.read(reference.toFile())),
                "MarkShark2 with hlhc's transformer, img2img with a reference");
    }

    @Test
    void infoShowsTheLayoutAndEachRolesMapping() throws Exception {
        CliProcess.Result text =
                CliProcess.run(work, "info", "--model", hlhc.directory().toString());
        assertEquals(0, text.exitCode(), text.toString());
        assertTrue(text.out().contains("Layout:   hlhc (graph signatures)"), text.out());
        assertTrue(text.out().contains("transformer  (transformer.onnx)  denoiser (hlhc)"), text.out());
        assertTrue(text.out().contains("role hidden_states = in: latent tokens"), text.out());
        assertTrue(text.out().contains("role timestep = in: timestep"), text.out());
        assertTrue(text.out().contains("transformer.onnx.data"), text.out());

        CliProcess.Result json = CliProcess.run(
                work,
                "info",
                "--json",
                "--model",
                markshark.directory().toString(),
                "--component",
                "transformer=" + hlhc.graphFile("transformer"));
        assertEquals(0, json.exitCode(), json.toString());
        JsonNode root = JSON.readTree(json.out());
        assertTrue(root.get("details").get("layout").asText().startsWith("composed: markshark2"), json.out());
        JsonNode denoiser = null;
        for (JsonNode g : root.get("graphs")) {
            if (g.get("key").asText().equals("transformer")) {
                denoiser = g;
            }
        }
        assertTrue(denoiser != null, json.out());
        assertEquals(
                hlhc.graphFile("transformer").toAbsolutePath().toString(),
                denoiser.get("file").asText());
        assertEquals("denoiser (hlhc)", denoiser.get("role").asText());
        assertTrue(denoiser.get("mapping").toString().contains("noise_pred"), denoiser.toString());
    }

    @Test
    void aBadComponentIsAUsageOrModelError() throws Exception {
        CliProcess.Result role = CliProcess.run(
                work, "info", "--model", hlhc.directory().toString(), "--component", "unet=" + hlhc.directory());
        assertEquals(2, role.exitCode(), role.toString());
        assertTrue(role.err().contains("unknown model role 'unet'"), role.err());
        CliProcess.Result wrong = CliProcess.run(
                work,
                "generate",
                "--model",
                hlhc.directory().toString(),
                "--component",
                "vae-decoder=" + hlhc.graphFile("vae_encoder"),
                "--prompt",
                "x",
                "--seed",
                "1");
        assertEquals(3, wrong.exitCode(), wrong.toString());
        assertTrue(wrong.err().contains("is a VAE encoder graph, not a vae-decoder"), wrong.err());
        Path transformerOnly = work.resolve("transformer-only");
        hlhc.copyGraph("transformer", transformerOnly);
        CliProcess.Result partial = CliProcess.run(work, "info", "--model", transformerOnly.toString());
        assertEquals(3, partial.exitCode(), partial.toString());
        assertTrue(partial.out().contains("denoiser (hlhc)"), partial.out());
        assertTrue(
                partial.err().contains("do not make a model") && partial.err().contains("no text encoder graph"),
                partial.err());
    }
}
