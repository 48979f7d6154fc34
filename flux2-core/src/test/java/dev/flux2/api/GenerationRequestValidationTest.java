package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.ImageFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every validation rule of {@link GenerationRequest.Builder}, with the message it must give. */
class GenerationRequestValidationTest {
    @TempDir
    Path dir;

    private static BufferedImage image(int width, int height) {
        return new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    }

    private static <E extends Flux2Exception> String rejects(Class<E> type, Consumer<GenerationRequest.Builder> setup) {
        GenerationRequest.Builder builder = GenerationRequest.builder("a prompt");
        setup.accept(builder);
        return assertThrows(type, builder::build).getMessage();
    }

    private static String rejects(Consumer<GenerationRequest.Builder> setup) {
        return rejects(InvalidRequestException.class, setup);
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), "message '" + message + "' lacks '" + part + "'");
        }
    }

    @ParameterizedTest
    @CsvSource({"1000, 1008", "1010, 1008", "8, 16", "0, 16", "-32, 16", "520, 528"})
    void sizesMustBeMultiplesOf16AndTheNearestIsSuggested(int value, int nearest) {
        assertContains(
                rejects(b -> b.width(value)),
                "width",
                "multiple of 16",
                "got " + value,
                "nearest valid width: " + nearest);
        assertContains(rejects(b -> b.height(value)), "height", "got " + value, "nearest valid height: " + nearest);
    }

    @Test
    void validSizesAreKept() {
        GenerationRequest request =
                GenerationRequest.builder("p").size(512, 768).build();
        assertEquals(512, request.width().getAsInt());
        assertEquals(768, request.height().getAsInt());
    }

    @Test
    void stepsMustBePositive() {
        assertContains(rejects(b -> b.steps(0)), "steps must be >= 1, got 0");
        assertContains(rejects(b -> b.steps(-3)), "got -3");
    }

    @Test
    void nullPromptsAreRejected() {
        assertContains(
                assertThrows(
                                InvalidRequestException.class,
                                () -> GenerationRequest.builder().build())
                        .getMessage(),
                "prompt must not be null");
        assertContains(
                assertThrows(
                                InvalidRequestException.class,
                                () -> GenerationRequest.builder(null).build())
                        .getMessage(),
                "prompt must not be null");
        assertContains(rejects(b -> b.negativePrompt(null)), "negativePrompt must not be null");
    }

    @Test
    void emptyPromptIsAllowedVerbatim() {
        assertEquals("", GenerationRequest.builder("").build().prompt());
        assertEquals(
                "  spaced  ", GenerationRequest.builder("  spaced  ").build().prompt());
    }

    @ParameterizedTest
    @CsvSource({"1.5", "-0.1", "NaN"})
    void strengthMustBeInUnitInterval(double strength) {
        assertContains(rejects(b -> b.initImage(image(64, 64)).strength(strength)), "strength must be in [0, 1]");
    }

    @Test
    void strengthZeroLeavesNoStep() {
        assertContains(rejects(b -> b.initImage(image(64, 64)).strength(0)), "strength 0 leaves no denoising step");
    }

    @Test
    void strengthNeedsAnInitImage() {
        assertContains(rejects(b -> b.strength(0.5)), "without an init image");
    }

    private static String readRejects(Path path, String what) {
        return assertThrows(InvalidImageException.class, () -> ImageFiles.read(path, what))
                .getMessage();
    }

    @Test
    void missingImageFilesAreNamed() {
        Path missing = dir.resolve("nope.png");
        assertContains(readRejects(missing, "init image"), "init image", missing.toString(), "does not exist");
        assertContains(readRejects(missing, "reference image 0"), "reference image 0", "does not exist");
        assertContains(readRejects(dir, "init image"), "is not a file");
    }

    @Test
    void unreadableImageFilesAreNamed() throws IOException {
        Path garbage = Files.writeString(dir.resolve("garbage.png"), "this is not a PNG");
        assertContains(readRejects(garbage, "init image"), garbage.toString(), "not in a readable image format");
        assertContains(
                readRejects(garbage, "reference image 0"), "reference image 0", "not in a readable image format");
    }

    @Test
    void imageFilesAreReadByImageFiles() throws IOException {
        Path png = dir.resolve("ok.png");
        ImageIO.write(image(80, 64), "png", png.toFile());
        GenerationRequest request = GenerationRequest.builder("p")
                .initImage(ImageFiles.read(png, "init image"))
                .addReferenceImage(ImageFiles.read(png, "reference image 0"))
                .build();
        assertEquals(80, request.initImage().orElseThrow().getWidth());
        assertEquals(1, request.referenceImages().size());
    }

    @Test
    void referencesMustBeLargeEnoughAndNotTooElongated() {
        assertContains(
                rejects(InvalidImageException.class, b -> b.addReferenceImage(image(63, 200))),
                "reference image 0",
                "at least 64x64",
                "got 63x200");
        assertContains(
                rejects(
                        InvalidImageException.class,
                        b -> b.addReferenceImage(image(64, 64)).addReferenceImage(image(64, 600))),
                "reference image 1",
                "aspect ratio",
                "got 64x600");
        GenerationRequest ok =
                GenerationRequest.builder("p").addReferenceImage(image(64, 512)).build();
        assertEquals(1, ok.referenceImages().size(), "8:1 is still allowed");
    }

    @Test
    void noiseAndSeedAreExclusive() {
        assertContains(rejects(b -> b.seed(1).noise(new float[128])), "either a seed or explicit noise");
    }

    @Test
    void noiseDescribesOneImage() {
        assertContains(rejects(b -> b.noise(new float[128]).numImages(2)), "numImages must be 1, got 2");
    }

    @Test
    void noiseValuesAreChecked() {
        assertContains(rejects(b -> b.noise(new float[100])), "got 100");
        assertContains(rejects(b -> b.noise(new float[0])), "got 0");
        float[] withNan = new float[128];
        withNan[5] = Float.NaN;
        assertContains(rejects(b -> b.noise(withNan)), "noise[5] must be finite");
    }

    @Test
    void noiseIsCopiedInAndOut() {
        float[] noise = new float[128];
        GenerationRequest request = GenerationRequest.builder("p").noise(noise).build();
        noise[0] = 42f;
        assertEquals(0f, request.noise().orElseThrow()[0]);
        request.noise().orElseThrow()[1] = 7f;
        assertEquals(0f, request.noise().orElseThrow()[1]);
    }

    @Test
    void sigmasAreValidated() {
        assertContains(rejects(b -> b.sigmas()), "at least one value");
        assertContains(rejects(b -> b.sigmas(1f, 0f)), "sigmas[1] must be in (0, 1], got 0.0");
        assertContains(rejects(b -> b.sigmas(1.5f)), "sigmas[0] must be in (0, 1], got 1.5");
        assertContains(rejects(b -> b.sigmas(Float.NaN)), "sigmas[0]");
        assertContains(rejects(b -> b.sigmas(0.5f, 0.8f)), "non-increasing", "sigmas[1] = 0.8");
        assertContains(
                rejects(b -> b.steps(4).sigmas(1f, 0.5f)), "steps (4) must equal the number of custom sigmas (2)");
    }

    @Test
    void customSigmasSetTheStepCount() {
        GenerationRequest request =
                GenerationRequest.builder("p").sigmas(1f, 0.6f, 0.3f).build();
        assertEquals(3, request.steps().getAsInt());
        assertArrayEquals(new float[] {1f, 0.6f, 0.3f}, request.customSigmas().orElseThrow());
    }

    @Test
    void guidanceAndImageCountAreChecked() {
        assertContains(rejects(b -> b.guidance(-1f)), "guidance must be a finite value >= 0, got -1.0");
        assertContains(rejects(b -> b.guidance(Float.POSITIVE_INFINITY)), "guidance");
        assertContains(rejects(b -> b.numImages(0)), "numImages must be >= 1, got 0");
    }

    @Test
    void toBuilderRoundTrips() {
        GenerationRequest request = GenerationRequest.builder("p")
                .size(64, 48)
                .seed(5)
                .steps(3)
                .guidance(2f)
                .numImages(2)
                .negativePrompt("blurry")
                .build();
        GenerationRequest copy = request.toBuilder().seed(6).build();
        assertEquals(64, copy.width().getAsInt());
        assertEquals(3, copy.steps().getAsInt());
        assertEquals(2f, copy.guidance().orElseThrow());
        assertEquals(2, copy.numImages());
        assertEquals("blurry", copy.negativePrompt());
        assertEquals(6, copy.seed().getAsLong());
    }
}
