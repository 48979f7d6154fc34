package dev.flux2.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.examples.embedding.ImageToImageExample;
import dev.flux2.examples.embedding.MinimalExample;
import dev.flux2.examples.embedding.ReferencesExample;
import dev.flux2.examples.embedding.ServerExample;
import dev.flux2.examples.spark.SparkDriverExample;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every example runs, as a user runs it, on a synthetic bundle (random weights: the checks are about what each
 * program promises to write, not about the picture): in this JVM through its {@code main}, the server example as
 * its own process that serves one request and stops when its standard input ends.
 */
class ExamplesTest {
    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static BufferedImage read(Path png) throws IOException {
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, png + " is a PNG");
        return image;
    }

    private static boolean samePixels(BufferedImage a, BufferedImage b) {
        if (a.getWidth() != b.getWidth() || a.getHeight() != b.getHeight()) {
            return false;
        }
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) {
                if (a.getRGB(x, y) != b.getRGB(x, y)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Path minimal(String name) throws IOException {
        Path png = work.resolve(name);
        MinimalExample.main(new String[] {bundle.directory().toString(), "a red fox in the snow", png.toString()});
        return png;
    }

    @Test
    void minimalWritesA512SquareAndTheSameOneTwice() throws IOException {
        BufferedImage first = read(minimal("minimal-1.png"));
        assertEquals(512, first.getWidth());
        assertEquals(512, first.getHeight());
        assertTrue(samePixels(first, read(minimal("minimal-2.png"))), "a fixed seed draws the same image");
    }

    @Test
    void imageToImageKeepsTheSourceSizeAndStartsFromIt() throws IOException {
        Path source = work.resolve("source.png");
        BufferedImage wide = new BufferedImage(96, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 96; x++) {
                wide.setRGB(x, y, x < 48 ? 0xC03020 : 0x2040C0);
            }
        }
        ImageIO.write(wide, "png", source.toFile());
        Path low = work.resolve("img2img-low.png");
        Path high = work.resolve("img2img-high.png");
        ImageToImageExample.main(
                new String[] {bundle.directory().toString(), source.toString(), "a red fox", "0.3", low.toString()});
        ImageToImageExample.main(
                new String[] {bundle.directory().toString(), source.toString(), "a red fox", "0.9", high.toString()});
        BufferedImage lowImage = read(low);
        assertEquals(96, lowImage.getWidth(), "the source's size");
        assertEquals(64, lowImage.getHeight(), "the source's size");
        assertTrue(!samePixels(lowImage, read(high)), "the strength is passed on: 0.3 and 0.9 differ");
    }

    @Test
    void referencesChangeTheImage() throws IOException {
        Path plain = minimal("plain.png");
        Path reference = work.resolve("reference.png");
        BufferedImage ref = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 64; x++) {
                ref.setRGB(x, y, (x * 4) << 16 | (y * 4) << 8);
            }
        }
        ImageIO.write(ref, "png", reference.toFile());
        Path out = work.resolve("references.png");
        ReferencesExample.main(new String[] {
            bundle.directory().toString(), "a red fox in the snow", out.toString(), reference.toString()
        });
        BufferedImage image = read(out);
        assertEquals(512, image.getWidth());
        assertTrue(
                !samePixels(image, read(plain)),
                "same prompt and seed as MinimalExample: the reference made the" + " difference");
    }

    @Test
    void serverExampleServesUntilItsInputEnds() throws Exception {
        Path out = work.resolve("server-out.txt");
        Path err = work.resolve("server-err.txt");
        Process p = JavaProcess.start(
                work,
                out,
                err,
                "-cp",
                System.getProperty("java.class.path"),
                ServerExample.class.getName(),
                bundle.directory().toString(),
                "0");
        try {
            String url = awaitLine(out, p);
            assertTrue(url.startsWith("serving http://127.0.0.1:"), url);
            URI generations = URI.create(url.substring("serving ".length()));
            HttpClient client = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(generations)
                            .header("Content-Type", "application/json")
                            .POST(
                                    HttpRequest.BodyPublishers.ofString(
                                            "{\"prompt\": \"a red fox\", \"size\": \"64x64\", \"response_format\": \"b64_json\"}"))
                            .timeout(Duration.ofSeconds(60))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().contains("\"b64_json\""), r.body());
        } finally {
            try (OutputStream stdin = p.getOutputStream()) {
                // Closing standard input is how the example is told to stop.
            }
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertEquals(0, p.exitValue(), Files.readString(err));
    }

    private static String awaitLine(Path out, Process p) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            try (BufferedReader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
                String line = r.readLine();
                if (line != null && (line.endsWith("/generations") || !p.isAlive())) {
                    return line;
                }
            }
            if (!p.isAlive()) {
                throw new AssertionError("the server example exited " + p.exitValue() + " before serving");
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the server example printed no address within 120 s");
    }

    @Test
    void sparkDriverWritesOneImagePerRowAndTheResults() throws IOException {
        Path requests = work.resolve("requests.jsonl");
        Files.writeString(
                requests,
                "{\"id\": \"fox\", \"prompt\": \"a red fox\", \"seed\": 1, \"width\": 64, \"height\": 48}\n"
                        + "{\"id\": \"owl\", \"prompt\": \"an owl at night\", \"seed\": 2, \"width\": 48, \"height\": 64}\n");
        Path output = work.resolve("spark-out");
        SparkDriverExample.main(new String[] {bundle.directory().toString(), requests.toString(), output.toString()});
        BufferedImage fox = read(output.resolve("images").resolve("fox.png"));
        assertEquals(64, fox.getWidth());
        assertEquals(48, fox.getHeight());
        BufferedImage owl = read(output.resolve("images").resolve("owl.png"));
        assertEquals(48, owl.getWidth());
        assertTrue(Files.exists(output.resolve("results").resolve("_SUCCESS")), "the results table is written");
    }
}
