package dev.flux2.springai;

import static dev.flux2.springai.TestModels.assertSamePixels;
import static dev.flux2.springai.TestModels.decode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.content.Media;
import org.springframework.ai.image.ImageMessage;
import org.springframework.ai.image.ImageOptionsBuilder;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.ai.image.ImageResponse;
import org.springframework.util.MimeTypeUtils;

/**
 * {@link Flux2ImageModel} on a synthetic bundle: images equal to {@code Flux2Pipeline.generate} and {@code flux2
 * generate} for the same request, references and init images from media, options merging and the observation.
 */
class Flux2ImageModelTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path work;

    private static Flux2Pipeline direct;
    private static Flux2ImageModel model;
    private static BufferedImage picture;
    private static byte[] picturePng;

    @BeforeAll
    static void setUp() {
        direct = TestModels.direct();
        model = Flux2ImageModel.builder()
                .pipeline(direct)
                .defaultOptions(Flux2ImageOptions.builder()
                        .width(32)
                        .height(48)
                        .steps(2)
                        .seed(42L)
                        .build())
                .localImageFolders(List.of(work))
                .build();
        picture = direct.generate(GenerationRequest.builder("a meadow")
                        .seed(5)
                        .size(64, 64)
                        .build())
                .first()
                .image();
        picturePng = TestModels.png(picture);
    }

    private static GenerationRequest.Builder sameRequest(long seed) {
        return GenerationRequest.builder(PROMPT).size(32, 48).steps(2).seed(seed);
    }

    private static ImagePrompt withImages(Flux2ImageOptions options, Media... media) {
        return new ImagePrompt(List.of(new ImageMessage(PROMPT, null, List.of(media), Map.of())), options);
    }

    @Test
    void callGivesThePipelinesAndTheClisImage() {
        ImageResponse response = model.call(new ImagePrompt(PROMPT));
        assertEquals(1, response.getResults().size());
        BufferedImage image = decode(response.getResult());
        assertNull(response.getResult().getOutput().getUrl());
        assertSamePixels(direct.generate(sameRequest(42).build()).first().image(), image, "pipeline");
        assertSamePixels(
                TestModels.cli("--prompt", PROMPT, "--seed", "42", "--width", "32", "--height", "48", "--steps", "2"),
                image,
                "flux2 generate");
        Flux2ImageGenerationMetadata metadata =
                (Flux2ImageGenerationMetadata) response.getResult().getMetadata();
        assertEquals(42L, metadata.seed());
        assertEquals(2, metadata.steps());
        assertEquals(32, metadata.width());
        assertEquals(48, metadata.height());
        assertTrue(metadata.time().toNanos() > 0);
    }

    @Test
    void imageKOfNUsesSeedPlusKAndTheCallsOptionsWin() {
        ImageResponse response = model.call(new ImagePrompt(
                PROMPT, Flux2ImageOptions.builder().n(2).seed(7L).height(32).build()));
        assertEquals(2, response.getResults().size());
        for (int k = 0; k < 2; k++) {
            Flux2ImageGenerationMetadata m =
                    (Flux2ImageGenerationMetadata) response.getResults().get(k).getMetadata();
            assertEquals(7L + k, m.seed());
            assertSamePixels(
                    direct.generate(sameRequest(7 + k).size(32, 32).build())
                            .first()
                            .image(),
                    decode(response.getResults().get(k)),
                    "image " + k);
        }
        // Spring AI's portable options work too: their width wins, the FLUX.2 defaults stay.
        ImageResponse portable = model.call(
                new ImagePrompt(PROMPT, ImageOptionsBuilder.builder().width(48).build()));
        assertSamePixels(
                direct.generate(sameRequest(42).size(48, 48).build()).first().image(),
                decode(portable.getResult()),
                "portable options");
    }

    @Test
    void mediaAreReferenceImagesFromBytesBase64DataAndFileUrls() throws Exception {
        BufferedImage expected = direct.generate(
                        sameRequest(42).addReferenceImage(picture).build())
                .first()
                .image();
        Path file = work.resolve("picture.png");
        Files.write(file, picturePng);
        String base64 = Base64.getEncoder().encodeToString(picturePng);
        List<Media> forms = List.of(
                Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data(picturePng)
                        .build(),
                Media.builder().mimeType(MimeTypeUtils.IMAGE_PNG).data(base64).build(),
                Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data("data:image/png;base64," + base64)
                        .build(),
                Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data(file.toUri())
                        .build());
        BufferedImage fromBytes = null;
        for (Media media : forms) {
            BufferedImage image = decode(model.call(withImages(null, media)).getResult());
            assertSamePixels(expected, image, media.getData().getClass().getSimpleName());
            fromBytes = fromBytes == null ? image : fromBytes;
        }
        assertSamePixels(
                TestModels.cli(
                        "--prompt",
                        PROMPT,
                        "--seed",
                        "42",
                        "--width",
                        "32",
                        "--height",
                        "48",
                        "--steps",
                        "2",
                        "--reference",
                        file.toString()),
                fromBytes,
                "flux2 generate --reference");
        assertEquals(List.of(), leftoverStagedFiles(), "temporary image files are deleted");
    }

    private static List<Path> leftoverStagedFiles() throws Exception {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("flux2-referenceimage"))
                    .toList();
        }
    }

    @Test
    void withAStrengthTheFirstImageIsTheInitImage() {
        BufferedImage init = direct.generate(GenerationRequest.builder("a field")
                        .seed(9)
                        .size(32, 48)
                        .build())
                .first()
                .image();
        Flux2ImageOptions img2img = Flux2ImageOptions.builder().strength(0.5).build();
        ImageResponse response = model.call(withImages(
                img2img,
                Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data(TestModels.png(init))
                        .build(),
                Media.builder()
                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                        .data(picturePng)
                        .build()));
        assertSamePixels(
                direct.generate(sameRequest(42)
                                .initImage(init)
                                .strength(0.5)
                                .addReferenceImage(picture)
                                .build())
                        .first()
                        .image(),
                decode(response.getResult()),
                "img2img with a reference");
        InvalidRequestException noInit =
                assertThrows(InvalidRequestException.class, () -> model.call(new ImagePrompt(PROMPT, img2img)));
        assertTrue(noInit.getMessage().contains("without an init image"), noInit.getMessage());
    }

    @Test
    void mergeLaysTheCallOverTheDefaults() {
        Flux2ImageOptions defaults = Flux2ImageOptions.builder()
                .model("m")
                .n(1)
                .width(64)
                .height(64)
                .seed(1L)
                .steps(4)
                .guidance(3.5)
                .build();
        assertEquals(defaults, defaults.merge(null));
        assertEquals(
                defaults.toBuilder().width(32).n(3).build(),
                defaults.merge(ImageOptionsBuilder.builder().width(32).n(3).build()),
                "portable options replace only what they set; FLUX.2's stay");
        assertEquals(
                defaults.toBuilder().seed(9L).strength(0.25).build(),
                defaults.merge(
                        Flux2ImageOptions.builder().seed(9L).strength(0.25).build()));
        InvalidRequestException style = assertThrows(
                InvalidRequestException.class,
                () -> defaults.merge(
                        ImageOptionsBuilder.builder().style("vivid").build()));
        assertTrue(style.getMessage().contains("style is not supported"), style.getMessage());
    }

    @Test
    void localFilesAreReadOnlyFromTheFoldersAllowedAndPasswordsAreNeverShown() throws Exception {
        Path file = work.resolve("private.png");
        Files.write(file, picturePng);
        Media local = Media.builder()
                .mimeType(MimeTypeUtils.IMAGE_PNG)
                .data(file.toUri())
                .build();
        Flux2ImageModel plain = Flux2ImageModel.builder().pipeline(direct).build();
        InvalidImageException refused =
                assertThrows(InvalidImageException.class, () -> plain.call(withImages(null, local)));
        assertTrue(refused.getMessage().contains("spring.ai.flux2.image.local-image-folders"), refused.getMessage());
        Flux2ImageModel confined = Flux2ImageModel.builder()
                .pipeline(direct)
                .localImageFolders(List.of(Files.createDirectories(work.resolve("allowed"))))
                .build();
        InvalidImageException outside =
                assertThrows(InvalidImageException.class, () -> confined.call(withImages(null, local)));
        assertTrue(outside.getMessage().contains("outside the folders allowed"), outside.getMessage());

        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        String withPassword = "http://user:secret@127.0.0.1:" + closedPort + "/x.png";
        Flux2ImageModel allowing = Flux2ImageModel.builder()
                .pipeline(direct)
                .allowRemoteImages(true)
                .build();
        for (String data : List.of(withPassword, withPassword.replace("/x.png", "/a b.png"), "ftp://u:secret@h/x")) {
            for (Flux2ImageModel m : List.of(model, allowing)) {
                InvalidImageException e = assertThrows(
                        InvalidImageException.class,
                        () -> m.call(withImages(
                                null,
                                Media.builder()
                                        .mimeType(MimeTypeUtils.IMAGE_PNG)
                                        .data(data)
                                        .build())));
                assertFalse(e.getMessage().contains("secret"), e.getMessage());
                assertTrue(e.getMessage().contains("***@"), e.getMessage());
            }
        }
    }

    @Test
    void unsupportedOptionsAndMediaAreClearErrors() {
        InvalidRequestException url = assertThrows(
                InvalidRequestException.class,
                () -> model.call(new ImagePrompt(
                        PROMPT,
                        ImageOptionsBuilder.builder().responseFormat("url").build())));
        assertTrue(url.getMessage().contains("responseFormat must be 'b64_json'"), url.getMessage());

        Flux2ImageModel named = Flux2ImageModel.builder()
                .pipeline(direct)
                .defaultOptions(Flux2ImageOptions.builder().model("my/model").build())
                .build();
        InvalidRequestException other = assertThrows(
                InvalidRequestException.class,
                () -> named.call(new ImagePrompt(
                        PROMPT,
                        ImageOptionsBuilder.builder().model("other/model").build())));
        assertTrue(other.getMessage().contains("not the model this Flux2ImageModel serves"), other.getMessage());

        InvalidImageException remote = assertThrows(
                InvalidImageException.class,
                () -> model.call(withImages(
                        null,
                        Media.builder()
                                .mimeType(MimeTypeUtils.IMAGE_PNG)
                                .data("http://127.0.0.1:9/x.png")
                                .build())));
        assertTrue(remote.getMessage().contains("allow-remote-images=true"), remote.getMessage());
        InvalidImageException text = assertThrows(
                InvalidImageException.class,
                () -> model.call(withImages(
                        null,
                        Media.builder()
                                .mimeType(MimeTypeUtils.TEXT_PLAIN)
                                .data("hello".getBytes())
                                .build())));
        assertTrue(text.getMessage().contains("expected image/*"), text.getMessage());
        InvalidImageException relative = assertThrows(
                InvalidImageException.class,
                () -> model.call(withImages(
                        null,
                        Media.builder()
                                .mimeType(MimeTypeUtils.IMAGE_PNG)
                                .data("file:picture.png")
                                .build())));
        assertTrue(relative.getMessage().contains("not an absolute file: URL"), relative.getMessage());
        assertThrows(
                InvalidRequestException.class, () -> Flux2ImageModel.builder().build());
        InvalidRequestException width = assertThrows(
                InvalidRequestException.class,
                () -> Flux2ImageModel.builder()
                        .pipeline(direct)
                        .defaultOptions(Flux2ImageOptions.builder().width(1000).build())
                        .build());
        assertTrue(
                width.getMessage().contains("width must be a positive multiple of 16, got 1000"), width.getMessage());
    }

    @Test
    void everyCallIsObservedUnderSpringAisImageModelConvention() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        Flux2ImageModel observed = Flux2ImageModel.builder()
                .pipeline(direct)
                .defaultOptions(Flux2ImageOptions.builder()
                        .model("synthetic")
                        .width(32)
                        .height(48)
                        .steps(2)
                        .seed(42L)
                        .build())
                .observationRegistry(registry)
                .build();
        observed.call(new ImagePrompt(PROMPT));
        TestObservationRegistryAssert.assertThat(registry)
                .doesNotHaveAnyRemainingCurrentObservation()
                .hasObservationWithNameEqualTo("gen_ai.client.operation")
                .that()
                .hasContextualNameEqualTo("image synthetic")
                .hasLowCardinalityKeyValue("gen_ai.operation.name", "image")
                .hasLowCardinalityKeyValue("gen_ai.system", "flux2")
                .hasLowCardinalityKeyValue("gen_ai.request.model", "synthetic")
                .hasHighCardinalityKeyValue("gen_ai.request.image.size", "32x48")
                .hasBeenStarted()
                .hasBeenStopped();
    }
}
