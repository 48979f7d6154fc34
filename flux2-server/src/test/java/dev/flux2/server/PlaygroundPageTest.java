package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /}: the playground page, self-contained (no address outside this server in it), served without the key
 * on a server that has one while the API still needs it, locked down by its headers; off with {@code ui(false)}.
 */
class PlaygroundPageTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(int port, String method, String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder().port(0).apiKey("sk-page").requestTimeout(Duration.ofSeconds(10));
    }

    @Test
    void thePageIsServedWithoutTheKeyAndLoadsNothingFromElsewhere() throws Exception {
        try (ImageService service = ImageService.start((r, c) -> FakeImages.of(r), config().build())) {
            HttpResponse<String> page = send(service.port(), "GET", "/", null);
            assertEquals(200, page.statusCode());
            assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("text/html"));
            String csp = page.headers().firstValue("content-security-policy").orElse("");
            assertTrue(csp.contains("default-src 'none'") && csp.contains("connect-src 'self'"), csp);
            assertEquals(
                    "nosniff",
                    page.headers().firstValue("x-content-type-options").orElse(""));
            String html = page.body();
            assertTrue(html.contains("id=\"prompt\"") && html.contains("/v1/images/generations"), "the page");
            assertTrue(html.contains("sessionStorage"), "the key lives in the tab");
            assertFalse(html.contains("localStorage"), "never stored beyond the tab");
            assertFalse(html.matches("(?s).*(src|href)=\"(https?:)?//.*"), "no CDN: nothing loaded from elsewhere");
            assertFalse(html.contains("http://") || html.contains("https://"), "no address outside this server");

            assertEquals(200, send(service.port(), "HEAD", "/", null).statusCode());
            assertEquals(405, send(service.port(), "PUT", "/", null).statusCode());
            // the API behind it still needs the key
            assertEquals(401, send(service.port(), "GET", "/v1/models", null).statusCode());
            assertEquals(
                    200, send(service.port(), "GET", "/v1/models", "sk-page").statusCode());
        }
    }

    @Test
    void noUiAnswers404() throws Exception {
        try (ImageService service = ImageService.start(
                (r, c) -> FakeImages.of(r), config().ui(false).build())) {
            HttpResponse<String> page = send(service.port(), "GET", "/", "sk-page");
            assertEquals(404, page.statusCode());
            assertEquals(401, send(service.port(), "GET", "/", null).statusCode(), "and it is an API path again");
        }
    }
}
