package dev.flux2.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A loopback client of the image service (test helper). */
final class ServiceClient {
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    private final URI base;

    ServiceClient(int port) {
        this.base = URI.create("http://127.0.0.1:" + port);
    }

    CompletableFuture<HttpResponse<byte[]>> postAsync(String json) {
        HttpRequest r = HttpRequest.newBuilder(base.resolve("/v1/images"))
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        return http.sendAsync(r, HttpResponse.BodyHandlers.ofByteArray());
    }

    HttpResponse<byte[]> post(String json) throws IOException, InterruptedException {
        return postAsync(json).join();
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(base.resolve(path))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
