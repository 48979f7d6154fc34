package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.ModelLoadException;
import dev.flux2.hub.HubModelResolver;
import dev.flux2.hub.HubOptions;
import dev.flux2.hub.ModelNames;
import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Flux2Pipeline.builder().model("owner/name@rev")} with the ONNX backend and flux2-hub on the class path,
 * against a loopback hub serving a synthetic bundle: the image equals the one from the plain folder, a second build
 * makes no request, a cache laid out as huggingface_hub lays it out is used without a request, and a snapshot the
 * backend finds incomplete is not trusted.
 */
class ModelByRepoIdTest {
    private static final String REPO = "tester/synthetic-flux2";
    private static final String COMMIT = "feedc0de00000000000000000000000000000001";

    @TempDir
    Path tmp;

    private static int[] pixels(Flux2Pipeline.Builder builder) {
        try (Flux2Pipeline p = builder.build()) {
            BufferedImage image = p.generate(GenerationRequest.builder("a red fox in the snow")
                            .seed(42)
                            .build())
                    .first()
                    .image();
            return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
        }
    }

    @Test
    void generatesByRepoIdLikeFromThePlainFolderThenReusesTheCacheWithoutARequest() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), tmp.resolve("origin"));
        Path cache = tmp.resolve("cache");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            HubOptions options = HubOptions.builder()
                    .cacheDir(cache)
                    .endpoint(hub.endpoint())
                    .build();
            int[] expected = pixels(Flux2Pipeline.builder().model(bundle.directory()));

            int[] byName = pixels(Flux2Pipeline.builder().model(REPO).modelResolver(new HubModelResolver(options)));
            assertArrayEquals(expected, byName);
            assertTrue(hub.requests().size() > 1);

            hub.clearRequests();
            int[] again =
                    pixels(Flux2Pipeline.builder().model(REPO + "@main").modelResolver(new HubModelResolver(options)));
            assertArrayEquals(expected, again);
            assertEquals(List.of(), hub.requests(), "the second run makes no request");

            // The backend's own check decides completeness: a snapshot lacking a shard is looked up again.
            Path snapshot = cache.resolve("models--tester--synthetic-flux2/snapshots/" + COMMIT);
            Path shard = snapshot.resolve(
                    bundle.shardFiles("transformer").get(0).getFileName().toString());
            Files.delete(shard);
            Files.delete(cache.resolve(".locks/models--tester--synthetic-flux2/snapshot-" + COMMIT + ".flux2.json"));
            assertFalse(Flux2Models.check(snapshot).isEmpty());
            hub.clearRequests();
            assertEquals(snapshot, Flux2Models.resolve(REPO, new HubModelResolver(options)));
            assertTrue(Files.isSymbolicLink(shard));
            assertEquals(
                    1,
                    hub.requests().stream()
                            .filter(r -> r.path().startsWith("/api/"))
                            .count());
        }
    }

    @Test
    void hlhcsExportIsNamedLikeTheDefaultBundle() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .hlhcLayout()
                        .variant(dev.flux2.testkit.BundleVariant.UNKNOWN_CONFIG_JSON)
                        .build(),
                tmp.resolve("hlhc"));
        Path cache = tmp.resolve("cache");
        String commit = "4b1c0000000000000000000000000000000000aa";
        try (FakeHub hub = new FakeHub().publish(ModelNames.HLHC_MODEL, commit, bundle.directory())) {
            HubOptions options = HubOptions.builder()
                    .cacheDir(cache)
                    .endpoint(hub.endpoint())
                    .build();
            GenerationRequest request = GenerationRequest.builder("a red fox in the snow")
                    .seed(42)
                    .size(32, 48)
                    .build();
            int[] expected = pixels(Flux2Pipeline.builder().model(bundle.directory()), request);
            assertArrayEquals(
                    expected,
                    pixels(
                            Flux2Pipeline.builder()
                                    .model(ModelNames.HLHC_MODEL)
                                    .modelResolver(new HubModelResolver(options)),
                            request));
            Path snapshot = cache.resolve("models--hlhc--FLUX.2-klein-4B-onnx/snapshots/" + commit);
            for (String file : List.of(
                    "text_encoder.onnx",
                    "text_encoder.onnx.data",
                    "transformer.onnx.data",
                    "vae_decoder.onnx.data",
                    "vae_encoder.onnx",
                    "config.json",
                    "tokenizer/tokenizer.json",
                    "tokenizer/tokenizer_config.json")) {
                assertTrue(Files.exists(snapshot.resolve(file)), file + " fetched");
            }
            assertEquals(List.of(), Flux2Models.check(snapshot), "the backend finds the snapshot complete");
        }
    }

    private static int[] pixels(Flux2Pipeline.Builder builder, GenerationRequest request) {
        try (Flux2Pipeline p = builder.build()) {
            BufferedImage image = p.generate(request).first().image();
            return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
        }
    }

    @Test
    void aCacheWrittenByHuggingfaceHubIsUsedWithoutARequest() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), tmp.resolve("origin"));
        Path cache = tmp.resolve("hf-cache");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            Path repo = cache.resolve("models--tester--synthetic-flux2");
            Path snapshot = repo.resolve("snapshots").resolve(COMMIT);
            try (Stream<Path> s = Files.walk(bundle.directory())) {
                for (Path f : s.filter(Files::isRegularFile).toList()) {
                    String rel = bundle.directory().relativize(f).toString().replace('\\', '/');
                    Path blob = repo.resolve("blobs").resolve(hub.etag(REPO, rel));
                    Files.createDirectories(blob.getParent());
                    Files.copy(f, blob);
                    Path pointer = snapshot.resolve(rel);
                    Files.createDirectories(pointer.getParent());
                    Files.createSymbolicLink(pointer, pointer.getParent().relativize(blob));
                }
            }
            Files.createDirectories(repo.resolve("refs"));
            Files.writeString(repo.resolve("refs/main"), COMMIT);

            HubOptions offline = HubOptions.builder()
                    .cacheDir(cache)
                    .endpoint(hub.endpoint())
                    .offline(true)
                    .build();
            int[] expected = pixels(Flux2Pipeline.builder().model(bundle.directory()));
            assertArrayEquals(
                    expected, pixels(Flux2Pipeline.builder().model(REPO).modelResolver(new HubModelResolver(offline))));
            assertEquals(List.of(), hub.requests());
        }
    }

    @Test
    void offlineWithAnEmptyCacheIsAModelLoadExceptionNamingWhatIsMissing() {
        HubOptions offline = HubOptions.builder()
                .cacheDir(tmp.resolve("empty"))
                .offline(true)
                .build();
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder()
                        .model("tester/absent@main")
                        .modelResolver(new HubModelResolver(offline))
                        .build());
        assertTrue(
                e.getMessage().contains("tester/absent@main") && e.getMessage().contains("offline"), e.getMessage());
        ModelLoadException notFolder = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model("no-such-folder").build());
        assertTrue(notFolder.getMessage().contains("does not exist"), notFolder.getMessage());
    }
}
