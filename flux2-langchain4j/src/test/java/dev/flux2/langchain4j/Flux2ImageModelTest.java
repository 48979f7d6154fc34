package dev.flux2.langchain4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.cli.Flux2Cli;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.model.image.ImageModel;
import dev.langchain4j.model.output.Response;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A LangChain4j program generating and editing through {@link Flux2ImageModel} on a miniature synthetic bundle, every
 * image compared pixel for pixel with {@code Flux2Pipeline.generate} of the same request and, for one generation and
 * one edit, with the PNG {@code flux2 generate} writes.
 */
class Flux2ImageModelTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path work;

    private static SyntheticBundle bundle;
    private static Flux2Pipeline direct;
    private static Flux2ImageModel model;
    private static BufferedImage picture;
    private static byte[] picturePng;

    @BeforeAll
    static void setUp() throws IOException {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        direct = Flux2Pipeline.builder().model(bundle.directory()).build();
        // The model shares the pipeline the expected images come from: one model load fewer. Opening a model by
        // name is closeClosesAnOwnedPipelineAndLeavesASharedOneOpen's (and the CLI's) part.
        model = Flux2ImageModel.builder()
                .pipeline(direct)
                .width(32)
                .height(48)
                .steps(2)
                .seed(42L)
                .localImageFolders(work)
                .build();
        // A picture to edit with: any image the model made will do.
        picture = direct.generate(GenerationRequest.builder("a meadow")
                        .seed(5)
                        .size(64, 64)
                        .build())
                .first()
                .image();
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(picture, "png", png);
        picturePng = png.toByteArray();
    }

    @AfterAll
    static void tearDown() {
        if (model != null) {
            model.close();
        }
        if (direct != null) {
            direct.close();
        }
    }

    private static GenerationRequest.Builder sameRequest(long seed) {
        return GenerationRequest.builder(PROMPT).size(32, 48).steps(2).seed(seed);
    }

    private static BufferedImage decode(Image image) {
        assertEquals("image/png", image.mimeType());
        try {
            return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(image.base64Data())));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void assertSamePixels(BufferedImage expected, BufferedImage actual, String what) {
        assertEquals(expected.getWidth(), actual.getWidth(), what + ": width");
        assertEquals(expected.getHeight(), actual.getHeight(), what + ": height");
        int w = expected.getWidth();
        int h = expected.getHeight();
        assertArrayEquals(
                expected.getRGB(0, 0, w, h, null, 0, w), actual.getRGB(0, 0, w, h, null, 0, w), what + ": pixels");
    }

    private static BufferedImage cli(String... args) throws IOException {
        Path out = Files.createTempFile(work, "cli-", ".png");
        Files.delete(out);
        List<String> argv = new java.util.ArrayList<>(List.of(
                "generate",
                "--model",
                bundle.directory().toString(),
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
                "--no-progress",
                "--output",
                out.toString()));
        argv.addAll(List.of(args));
        CommandLine cmd = Flux2Cli.newCommandLine();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(new StringWriter(), true));
        cmd.setErr(new PrintWriter(err, true));
        assertEquals(0, cmd.execute(argv.toArray(String[]::new)), err.toString());
        return ImageIO.read(out.toFile());
    }

    @Test
    void generateGivesThePipelinesAndTheClisImage() throws IOException {
        ImageModel imageModel = model;
        Response<Image> response = imageModel.generate(PROMPT);
        BufferedImage image = decode(response.content());
        assertSamePixels(direct.generate(sameRequest(42).build()).first().image(), image, "pipeline");
        assertSamePixels(cli(), image, "flux2 generate");
        assertEquals(42L, response.metadata().get("seed"));
        assertEquals(2, response.metadata().get("steps"));
        assertEquals(32, response.metadata().get("width"));
        assertEquals(48, response.metadata().get("height"));
    }

    @Test
    void imageKOfNUsesSeedPlusK() {
        Response<List<Image>> response = model.generate(PROMPT, 3);
        assertEquals(3, response.content().size());
        assertEquals(List.of(42L, 43L, 44L), response.metadata().get("seeds"));
        for (int k = 0; k < 3; k++) {
            assertSamePixels(
                    direct.generate(sameRequest(42 + k).build()).first().image(),
                    decode(response.content().get(k)),
                    "image " + k);
        }
    }

    @Test
    void editPassesTheImageAsAReferenceFromBase64DataAndFileUrls() throws IOException {
        BufferedImage expected = direct.generate(
                        sameRequest(42).addReferenceImage(picture).build())
                .first()
                .image();
        String base64 = Base64.getEncoder().encodeToString(picturePng);
        Path file = work.resolve("picture.png");
        Files.write(file, picturePng);

        BufferedImage fromBase64 = decode(model.edit(
                        Image.builder().base64Data(base64).mimeType("image/png").build(), PROMPT)
                .content());
        assertSamePixels(expected, fromBase64, "base64");
        assertSamePixels(
                expected,
                decode(model.edit(
                                Image.builder()
                                        .url("data:image/png;base64," + base64)
                                        .build(),
                                PROMPT)
                        .content()),
                "data: URL");
        assertSamePixels(
                expected,
                decode(model.edit(Image.builder().url(file.toUri()).build(), PROMPT)
                        .content()),
                "file: URL");
        assertSamePixels(cli("--reference", file.toString()), fromBase64, "flux2 generate --reference");
    }

    @Test
    void maskEditInpaintsWithOpenAisTransparentMaskAsTheApiWithWhite() throws Exception {
        int w = picture.getWidth();
        int h = picture.getHeight();
        BufferedImage openAi = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        BufferedImage white = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                openAi.setRGB(x, y, x < w / 2 ? 0x00000000 : 0xFFFFFFFF);
                white.setRGB(x, y, x < w / 2 ? 0xFFFFFF : 0x000000);
            }
        }
        BufferedImage expected = direct.generate(
                        sameRequest(42).initImage(picture).mask(white).build())
                .first()
                .image();
        Image image = Image.builder()
                .base64Data(Base64.getEncoder().encodeToString(picturePng))
                .mimeType("image/png")
                .build();
        java.io.ByteArrayOutputStream maskPng = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageIO.write(openAi, "png", maskPng);
        Image mask = Image.builder()
                .base64Data(Base64.getEncoder().encodeToString(maskPng.toByteArray()))
                .mimeType("image/png")
                .build();
        assertSamePixels(expected, decode(model.edit(image, mask, PROMPT).content()), "inpainting");

        java.io.ByteArrayOutputStream small = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageIO.write(new BufferedImage(w + 8, h, BufferedImage.TYPE_INT_ARGB), "png", small);
        Image wrong = Image.builder()
                .base64Data(Base64.getEncoder().encodeToString(small.toByteArray()))
                .mimeType("image/png")
                .build();
        RuntimeException e = assertThrows(RuntimeException.class, () -> model.edit(image, wrong, PROMPT));
        assertTrue(e.getMessage().contains(w + "x" + h) && e.getMessage().contains((w + 8) + "x" + h), e.getMessage());
    }

    @Test
    void remoteImagesAreFetchedOnlyWhenAllowed() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/picture.png", exchange -> {
            exchange.sendResponseHeaders(200, picturePng.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(picturePng);
            }
        });
        server.start();
        try {
            Image remote = Image.builder()
                    .url("http://127.0.0.1:" + server.getAddress().getPort() + "/picture.png")
                    .build();
            InvalidRequestException refused =
                    assertThrows(InvalidRequestException.class, () -> model.edit(remote, PROMPT));
            assertTrue(refused.getMessage().contains("allowRemoteImages(true)"), refused.getMessage());
            assertInstanceOf(InvalidImageException.class, refused.getCause());

            try (Flux2ImageModel allowing = Flux2ImageModel.builder()
                    .pipeline(direct)
                    .width(32)
                    .height(48)
                    .steps(2)
                    .seed(42L)
                    .allowRemoteImages(true)
                    .build()) {
                assertSamePixels(
                        direct.generate(sameRequest(42)
                                        .addReferenceImage(picture)
                                        .build())
                                .first()
                                .image(),
                        decode(allowing.edit(remote, PROMPT).content()),
                        "fetched from loopback");
            }
        } finally {
            server.stop(0);
        }
    }

    @Test
    void localFilesAreReadOnlyFromTheFoldersAllowedAndPasswordsAreNeverShown() throws IOException {
        Path file = work.resolve("private.png");
        Files.write(file, picturePng);
        Image local = Image.builder().url(file.toUri()).build();
        try (Flux2ImageModel plain =
                Flux2ImageModel.builder().pipeline(direct).steps(2).build()) {
            InvalidRequestException refused =
                    assertThrows(InvalidRequestException.class, () -> plain.edit(local, PROMPT));
            assertTrue(refused.getMessage().contains("localImageFolders(...)"), refused.getMessage());
        }
        Path allowed = Files.createDirectories(work.resolve("allowed"));
        try (Flux2ImageModel confined = Flux2ImageModel.builder()
                .pipeline(direct)
                .steps(2)
                .localImageFolders(allowed)
                .build()) {
            InvalidRequestException outside =
                    assertThrows(InvalidRequestException.class, () -> confined.edit(local, PROMPT));
            assertTrue(outside.getMessage().contains("outside the folders allowed"), outside.getMessage());
        }

        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        Image withPassword = Image.builder()
                .url("http://user:secret@127.0.0.1:" + closedPort + "/picture.png")
                .build();
        InvalidRequestException notAllowed =
                assertThrows(InvalidRequestException.class, () -> model.edit(withPassword, PROMPT));
        assertFalse(notAllowed.getMessage().contains("secret"), notAllowed.getMessage());
        try (Flux2ImageModel allowing = Flux2ImageModel.builder()
                .pipeline(direct)
                .steps(2)
                .allowRemoteImages(true)
                .build()) {
            InvalidRequestException unreachable =
                    assertThrows(InvalidRequestException.class, () -> allowing.edit(withPassword, PROMPT));
            assertFalse(unreachable.getMessage().contains("secret"), unreachable.getMessage());
            assertTrue(unreachable.getMessage().contains("http://***@127.0.0.1"), unreachable.getMessage());
        }
    }

    @Test
    void badImagesAndSettingsAreInvalidRequests() {
        InvalidRequestException base64 = assertThrows(
                InvalidRequestException.class,
                () -> model.edit(Image.builder().base64Data("not base64!").build(), PROMPT));
        assertTrue(base64.getMessage().contains("not valid base64"), base64.getMessage());
        InvalidRequestException notAnImage = assertThrows(
                InvalidRequestException.class,
                () -> model.edit(Image.builder().base64Data("AAAAAAAA").build(), PROMPT));
        assertTrue(notAnImage.getMessage().contains("not in a readable image format"), notAnImage.getMessage());
        InvalidRequestException scheme = assertThrows(
                InvalidRequestException.class,
                () -> model.edit(Image.builder().url("ftp://host/x.png").build(), PROMPT));
        assertTrue(scheme.getMessage().contains("unsupported scheme 'ftp'"), scheme.getMessage());
        InvalidRequestException relative = assertThrows(
                InvalidRequestException.class,
                () -> model.edit(Image.builder().url("file:picture.png").build(), PROMPT));
        assertTrue(relative.getMessage().contains("not an absolute file: URL"), relative.getMessage());

        InvalidRequestException width = assertThrows(
                InvalidRequestException.class,
                () -> Flux2ImageModel.builder().pipeline(direct).width(1000).build());
        assertTrue(
                width.getMessage().contains("width must be a positive multiple of 16, got 1000"), width.getMessage());
        InvalidRequestException both = assertThrows(
                InvalidRequestException.class,
                () -> Flux2ImageModel.builder()
                        .pipeline(direct)
                        .model(bundle.directory())
                        .build());
        assertTrue(both.getMessage().contains("shared pipeline"), both.getMessage());
        InvalidRequestException none = assertThrows(
                InvalidRequestException.class, () -> Flux2ImageModel.builder().build());
        assertTrue(none.getMessage().contains("set the model"), none.getMessage());
        assertThrows(
                dev.langchain4j.exception.ModelNotFoundException.class,
                () -> Flux2ImageModel.builder()
                        .model(work.resolve("no-such-bundle"))
                        .build());
    }

    @Test
    void closeClosesAnOwnedPipelineAndLeavesASharedOneOpen() {
        Flux2ImageModel shared =
                Flux2ImageModel.builder().pipeline(direct).steps(2).build();
        shared.close();
        assertEquals(1, direct.generate(sameRequest(1).build()).images().size(), "the shared pipeline still works");

        Flux2ImageModel owning = Flux2ImageModel.builder()
                .model(bundle.directory().toString())
                .width(32)
                .height(48)
                .steps(2)
                .seed(42L)
                .build();
        assertSamePixels(
                direct.generate(sameRequest(42).build()).first().image(),
                decode(owning.generate(PROMPT).content()),
                "a model opened by name");
        owning.close();
        NonRetriableException closed = assertThrows(NonRetriableException.class, () -> owning.generate(PROMPT));
        assertInstanceOf(PipelineClosedException.class, closed.getCause());
    }
}
