package dev.flux2.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every example runs on a synthetic bundle (random weights: the checks are about what each program promises to
 * write, not about the picture), in this JVM through its {@code main}; the server example through the method its
 * {@code main} calls, serving one request and stopping when its input ends.
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
                new String[] {bundle.directory().toString(), source.toString(), "a red fox", "0.7", high.toString()});
        BufferedImage lowImage = read(low);
        assertEquals(96, lowImage.getWidth(), "the source's size");
        assertEquals(64, lowImage.getHeight(), "the source's size");
        assertTrue(!samePixels(lowImage, read(high)), "the strength is passed on: 0.3 and 0.7 differ");
    }

    private static Path reference(String name, int shift) throws IOException {
        Path reference = work.resolve(name);
        BufferedImage ref = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 64; x++) {
                ref.setRGB(x, y, ((x * 4) << shift | (y * 4)) & 0xFFFFFF);
            }
        }
        ImageIO.write(ref, "png", reference.toFile());
        return reference;
    }

    private static BufferedImage withReference(String name, Path reference) throws IOException {
        Path out = work.resolve(name);
        ReferencesExample.main(new String[] {
            bundle.directory().toString(), "a red fox in the snow", out.toString(), reference.toString()
        });
        return read(out);
    }

    @Test
    void referencesChangeTheImage() throws IOException {
        BufferedImage a = withReference("references-a.png", reference("reference-a.png", 16));
        BufferedImage b = withReference("references-b.png", reference("reference-b.png", 8));
        assertEquals(64, a.getWidth(), "the synthetic model's default size");
        assertEquals(64, a.getHeight(), "the synthetic model's default size");
        assertTrue(!samePixels(a, b), "same prompt and seed, other reference: the reference is what differs");
    }

    @Test
    void serverExampleServesUntilItsInputEnds() throws Exception {
        PipedOutputStream stdin = new PipedOutputStream();
        PipedInputStream until = new PipedInputStream(stdin);
        PipedInputStream printed = new PipedInputStream();
        PrintStream out = new PrintStream(new PipedOutputStream(printed), true, StandardCharsets.UTF_8);
        ExecutorService runner = Executors.newSingleThreadExecutor();
        Future<?> serving = runner.submit(() -> {
            try {
                ServerExample.serve(bundle.directory().toString(), 0, until, out);
            } finally {
                // A failure before the address is printed ends the reader's wait.
                out.close();
            }
            return null;
        });
        try {
            String url = new BufferedReader(new InputStreamReader(printed, StandardCharsets.UTF_8)).readLine();
            assertNotNull(url, "the address is printed");
            assertTrue(url.startsWith("serving http://127.0.0.1:"), url);
            HttpClient client = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
            HttpResponse<String> r = client.send(
                    HttpRequest.newBuilder(URI.create(url.substring("serving ".length())))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"prompt\": \"a red fox\", \"size\": \"64x64\"}"))
                            .timeout(Duration.ofSeconds(60))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(r.body().contains("\"b64_json\""), r.body());
            assertFalse(serving.isDone(), "still serving while its input is open");
        } finally {
            // The end of its input is how the example is told to stop.
            stdin.close();
            serving.get(60, TimeUnit.SECONDS);
            runner.shutdown();
        }
    }

    @Test
    void sparkDriverWritesOneImagePerRowAndTheResults() throws IOException {
        Path requests = work.resolve("requests.jsonl");
        Files.writeString(
                requests,
                "{\"id\": \"fox\", \"prompt\": \"a red fox\", \"seed\": 1, \"width\": 64, \"height\": 48}\n"
                        + "{\"id\": \"owl\", \"prompt\": \"an owl at night\", \"seed\": 2, \"width\": 48, \"height\": 64}\n");
        Path output = work.resolve("spark-out");
        // Spark reads spark.* system properties as configuration: loopback only, no web UI, few shuffle partitions.
        System.setProperty("spark.driver.host", "127.0.0.1");
        System.setProperty("spark.driver.bindAddress", "127.0.0.1");
        System.setProperty("spark.ui.enabled", "false");
        System.setProperty("spark.sql.shuffle.partitions", "1");
        SparkDriverExample.main(new String[] {bundle.directory().toString(), requests.toString(), output.toString()});
        BufferedImage fox = read(output.resolve("images").resolve("fox.png"));
        assertEquals(64, fox.getWidth());
        assertEquals(48, fox.getHeight());
        BufferedImage owl = read(output.resolve("images").resolve("owl.png"));
        assertEquals(48, owl.getWidth());
        assertTrue(Files.exists(output.resolve("results").resolve("_SUCCESS")), "the results table is written");
    }
}
