package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The playground page ({@code GET /}) in a real browser: Debian's headless {@code chromium} driven through its
 * {@code chromedriver} by Selenium (nothing is downloaded). On a server with an API key over a synthetic bundle, the
 * page asks for the key, generates with streamed partial images, shows at least one partial image and the final
 * image, whose pixels equal the API's answer for the same request, and keeps it in the gallery; the key stays in the
 * tab's sessionStorage. A screenshot is kept as {@code target/playground/playground.png}. Skipped when chromium or
 * chromedriver is missing, unless {@code FLUX2_BROWSER_TESTS=require} (set by .ci/run) makes that a failure.
 * {@code FLUX2_CHROMIUM} and {@code FLUX2_CHROMEDRIVER} name other executables.
 */
class PlaygroundBrowserIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-playground-key";

    @TempDir
    static Path work;

    static Flux2Pipeline pipeline;
    static ImageService service;
    static WebDriver browser;

    @BeforeAll
    static void start() {
        Path chromium = Path.of(System.getenv().getOrDefault("FLUX2_CHROMIUM", "/usr/bin/chromium"));
        Path driver = Path.of(System.getenv().getOrDefault("FLUX2_CHROMEDRIVER", "/usr/bin/chromedriver"));
        if (!Files.isExecutable(chromium) || !Files.isExecutable(driver)) {
            String why = "no browser: " + chromium + " and " + driver
                    + " must be executables (Debian: apt-get install chromium chromium-driver)";
            if ("require".equals(System.getenv("FLUX2_BROWSER_TESTS"))) {
                fail("FLUX2_BROWSER_TESTS=require but " + why);
            }
            Assumptions.abort(why);
        }
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        pipeline = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .build();
        service = ImageService.start(
                pipeline,
                ServiceConfig.builder()
                        .port(0)
                        .apiKey(KEY)
                        .requestTimeout(Duration.ofSeconds(60))
                        .limits(pipeline.limits())
                        .build());
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments(
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900");
        ChromeDriverService driverService = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(driverService, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (service != null) {
            service.close();
        }
        if (pipeline != null) {
            pipeline.close();
        }
    }

    /** Opens the page as a new tab would: nothing in its sessionStorage. */
    private static void openFresh() {
        browser.get(base() + "/");
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
        browser.navigate().refresh();
    }

    private static String base() {
        return "http://127.0.0.1:" + service.port();
    }

    @Test
    void generatesWithPartialImagesAndTheApisPixels() throws Exception {
        openFresh();
        Wait wait = new Wait(Duration.ofSeconds(60));
        // the server has a key: the page asks for it
        wait.until(d -> d.findElement(By.id("apiKey")).isDisplayed());
        browser.findElement(By.id("apiKey")).sendKeys(KEY);
        browser.findElement(By.id("prompt")).sendKeys("a lighthouse at dusk");
        browser.findElement(By.id("width")).sendKeys("64");
        browser.findElement(By.id("height")).sendKeys("48");
        browser.findElement(By.id("seed")).sendKeys("7");
        browser.findElement(By.id("steps")).sendKeys("4");
        // partial images: the select's default is 2
        browser.findElement(By.id("generate")).click();
        wait.until(d -> {
            String src = d.findElement(By.id("final")).getAttribute("src");
            String status = d.findElement(By.id("status")).getText();
            if (d.findElement(By.id("status")).getAttribute("class").contains("error")) {
                throw new AssertionError("the page reports: " + status);
            }
            return src != null && src.startsWith("data:image/png;base64,");
        });
        int partials = Integer.parseInt(browser.findElement(By.id("live")).getAttribute("data-partials"));
        assertTrue(partials >= 1, "partial images shown: " + partials);
        String live = browser.findElement(By.id("live")).getAttribute("src");
        assertTrue(live != null && live.startsWith("data:image/png;base64,"), "the last partial image is shown");
        BufferedImage partial = decode(live);
        assertEquals(64, partial.getWidth(), "partial images have the requested size");

        BufferedImage shown = decode(browser.findElement(By.id("final")).getAttribute("src"));
        BufferedImage api = apiImage();
        assertSamePixels(api, shown);
        BufferedImage pipelines = pipeline.generate(GenerationRequest.builder("a lighthouse at dusk")
                        .size(64, 48)
                        .seed(7)
                        .steps(4)
                        .build())
                .first()
                .image();
        assertSamePixels(pipelines, shown);

        List<?> gallery = browser.findElements(By.cssSelector("#gallery figure"));
        assertEquals(1, gallery.size());
        String caption =
                browser.findElement(By.cssSelector("#gallery figcaption")).getText();
        assertTrue(caption.contains("seed 7") && caption.contains("64x48"), caption);

        JavascriptExecutor js = (JavascriptExecutor) browser;
        assertEquals(KEY, js.executeScript("return sessionStorage.getItem('flux2.apiKey')"));
        assertEquals(0L, js.executeScript("return localStorage.length"));
        assertEquals("", js.executeScript("return document.cookie"));

        Path shots = Path.of(System.getProperty("flux2.playground.screenshots", "target/playground"));
        Files.createDirectories(shots);
        byte[] png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(shots.resolve("playground.png"), png);
        assertFalse(ImageIO.read(new ByteArrayInputStream(png)) == null, "the screenshot is a PNG");
    }

    @Test
    void aWrongKeyIsShownAsAnError() throws InterruptedException {
        openFresh();
        Wait wait = new Wait(Duration.ofSeconds(30));
        wait.until(d -> d.findElement(By.id("apiKey")).isDisplayed());
        JavascriptExecutor js = (JavascriptExecutor) browser;
        js.executeScript("document.getElementById('apiKey').value = 'sk-wrong';");
        browser.findElement(By.id("prompt")).sendKeys("x");
        browser.findElement(By.id("generate")).click();
        wait.until(d -> d.findElement(By.id("status")).getAttribute("class").contains("error"));
        assertTrue(
                browser.findElement(By.id("status")).getText().contains("API key"),
                browser.findElement(By.id("status")).getText());
        assertNull(browser.findElement(By.id("final")).getAttribute("src"));
    }

    /** Polls a condition on the page (Selenium's own wait lives in another artifact, selenium-support). */
    private record Wait(Duration timeout) {
        void until(java.util.function.Function<WebDriver, Boolean> condition) throws InterruptedException {
            long end = System.nanoTime() + timeout.toNanos();
            while (!Boolean.TRUE.equals(condition.apply(browser))) {
                if (System.nanoTime() > end) {
                    throw new AssertionError("the page did not get there within " + timeout.toSeconds() + " s: "
                            + browser.findElement(By.id("status")).getText());
                }
                Thread.sleep(100);
            }
        }
    }

    /** The same request, not streamed, through the HTTP API. */
    private static BufferedImage apiImage() throws IOException, InterruptedException {
        String body = "{\"prompt\":\"a lighthouse at dusk\",\"size\":\"64x48\",\"seed\":7,\"steps\":4}";
        HttpResponse<String> answer = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(base() + "/v1/images/generations"))
                                .header("Authorization", "Bearer " + KEY)
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        JsonNode json = JSON.readTree(answer.body());
        return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder()
                .decode(json.get("data").get(0).get("b64_json").asText())));
    }

    private static BufferedImage decode(String dataUrl) throws IOException {
        String b64 = dataUrl.substring(dataUrl.indexOf(',') + 1);
        return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(b64)));
    }

    private static void assertSamePixels(BufferedImage expected, BufferedImage actual) {
        assertEquals(expected.getWidth(), actual.getWidth());
        assertEquals(expected.getHeight(), actual.getHeight());
        for (int y = 0; y < expected.getHeight(); y++) {
            for (int x = 0; x < expected.getWidth(); x++) {
                assertEquals(expected.getRGB(x, y), actual.getRGB(x, y), "pixel " + x + "," + y);
            }
        }
    }
}
