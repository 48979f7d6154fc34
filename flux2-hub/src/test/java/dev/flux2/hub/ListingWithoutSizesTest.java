package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.testkit.FakeHub;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33: a hub whose file list gives no sizes made {@code flux2 info --model REPO} report every shard it did
 * not fetch as missing. A file without a listed size is now asked with {@code HEAD}, as a fetched file is.
 */
class ListingWithoutSizesTest {
    @TempDir
    Path tmp;

    private FakeHub hub;
    private Path origin;

    @BeforeEach
    void start() throws IOException {
        origin = TinyRepo.write(tmp.resolve("origin"));
        hub = new FakeHub().publish(TinyRepo.REPO, TinyRepo.COMMIT, origin);
    }

    @AfterEach
    void stop() {
        hub.close();
    }

    @Test
    void theSizesOfFilesNotFetchedComeFromHeadWhenTheListingHasNone() throws Exception {
        URI list = URI.create(hub.endpoint() + "/api/models/" + TinyRepo.REPO + "/revision/main?blobs=true");
        String body = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(list).build(), HttpResponse.BodyHandlers.ofString())
                .body();
        ObjectMapper json = new ObjectMapper();
        JsonNode root = json.readTree(body);
        for (JsonNode s : root.get("siblings")) {
            ((ObjectNode) s).remove("size");
            if (s.has("lfs")) {
                ((ObjectNode) s.get("lfs")).remove("size");
            }
        }
        byte[] withoutSizes = json.writeValueAsBytes(root);
        hub.intercept((server, ex) -> {
            if (!server.equals("hub") || !ex.getRequestURI().getPath().startsWith("/api/models/")) {
                return false;
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, withoutSizes.length);
            ex.getResponseBody().write(withoutSizes);
            ex.close();
            return true;
        });
        ModelHub h = ModelHub.builder()
                .options(HubOptions.builder()
                        .cacheDir(tmp.resolve("cache"))
                        .endpoint(hub.endpoint())
                        .build())
                .environment(Map.of())
                .userHome(tmp.resolve("home"))
                .retries(0)
                .stallTimeout(Duration.ofSeconds(10))
                .knownBundles(KnownBundles.none())
                .folderCheck(dir -> List.of())
                .sleeper(ms -> {})
                .build();

        ResolvedModel resolved = h.resolve(RepoRef.parse(TinyRepo.REPO), FileSelection.CONFIG_AND_TOKENIZER);

        assertEquals(
                Files.size(origin.resolve("te-00001.onnx_data")),
                resolved.listedSizes().get("te-00001.onnx_data"),
                resolved.listedSizes().toString());
        assertEquals(
                Files.size(origin.resolve("te.onnx")), resolved.listedSizes().get("te.onnx"));
    }
}
