package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI as a separate process against a loopback hub serving a synthetic bundle: {@code generate --model REPO}
 * into an empty hub cache (plan on stderr, image equal to the plain folder's), a second run without a request, a
 * failing offline run; {@code download REPO --dir} cut mid-shard fails with exit 3 naming the file and resumes
 * with a Range request on the next run.
 */
class Flux2DownloadIT {
    private static final String REPO = "tester/synthetic-flux2";
    private static final String COMMIT = "feedc0de00000000000000000000000000000000";

    @TempDir
    Path work;

    private static int[] pixels(Path png) throws Exception {
        BufferedImage i = ImageIO.read(png.toFile());
        return i.getRGB(0, 0, i.getWidth(), i.getHeight(), null, 0, i.getWidth());
    }

    private CliProcess.Result generate(Map<String, String> env, String model, Path out, String... extra)
            throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of(
                "generate",
                "--model",
                model,
                "--prompt",
                "fox",
                "--seed",
                "5",
                "--output",
                out.toString(),
                "--no-progress"));
        args.addAll(List.of(extra));
        return CliProcess.run(work, env, args.toArray(String[]::new));
    }

    @Test
    void generateByRepoIdFetchesOnceIntoTheHubCacheThenRunsWithoutARequest() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        Path cache = work.resolve("hub-cache");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            Map<String, String> env = Map.of(
                    "HF_HUB_CACHE",
                    cache.toString(),
                    "HF_ENDPOINT",
                    hub.endpoint().toString());
            Path plain = work.resolve("plain.png");
            assertEquals(0, generate(env, bundle.directory().toString(), plain).exitCode());

            Path first = work.resolve("first.png");
            CliProcess.Result r = generate(env, REPO, first);
            assertEquals(0, r.exitCode(), r.toString());
            assertTrue(
                    r.err().contains("fetching ")
                            && r.err().contains(" files, ")
                            && r.err().contains(REPO),
                    r.err());
            assertTrue(Files.isDirectory(cache.resolve("models--tester--synthetic-flux2/snapshots/" + COMMIT)));
            assertEquals(List.of(pixels(plain)).get(0).length, pixels(first).length);
            assertTrue(java.util.Arrays.equals(pixels(plain), pixels(first)), "same image as from the folder");

            hub.clearRequests();
            CliProcess.Result second = generate(env, REPO + "@main", work.resolve("second.png"), "--offline");
            assertEquals(0, second.exitCode(), second.toString());
            assertTrue(!second.err().contains("fetching"), second.err());
            assertEquals(List.of(), hub.requests());

            CliProcess.Result missing = generate(
                    Map.of("HF_HUB_CACHE", work.resolve("empty").toString(), "HF_HUB_OFFLINE", "1"),
                    REPO,
                    work.resolve("x.png"));
            assertEquals(3, missing.exitCode(), missing.toString());
            assertTrue(missing.err().contains("offline") && missing.err().contains(REPO), missing.err());
            assertEquals(List.of(), hub.requests());
        }
    }

    @Test
    void downloadIntoAFolderResumesAfterACutAndNamesTheFile() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        Path shard = bundle.shardFiles("transformer").get(0);
        String shardName = shard.getFileName().toString();
        long cut = Files.size(shard) / 2;
        Path target = work.resolve("downloaded");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            hub.inject(shardName, FakeHub.Fault.CUT, cut);
            String[] args = {
                "download",
                REPO + "@" + COMMIT,
                "--endpoint",
                hub.endpoint().toString(),
                "--dir",
                target.toString(),
                "--retries",
                "0",
                "--no-progress"
            };

            CliProcess.Result first = CliProcess.run(work, args);
            assertEquals(3, first.exitCode(), first.toString());
            assertTrue(first.err().contains(shardName) && first.err().contains("resume"), first.err());

            CliProcess.Result second = CliProcess.run(work, args);
            assertEquals(0, second.exitCode(), second.toString());
            assertTrue(second.out().contains("model ready"), second.out());
            assertTrue(second.err().contains("already here, resumed"), second.err());
            assertTrue(
                    hub.requests().stream()
                            .anyMatch(r -> r.range() != null && r.server().equals("cdn")),
                    hub.requests().toString());

            CliProcess.Result verify = CliProcess.run(
                    work,
                    "download",
                    REPO + "@" + COMMIT,
                    "--endpoint",
                    hub.endpoint().toString(),
                    "--dir",
                    target.toString(),
                    "--verify",
                    "--no-progress");
            assertEquals(0, verify.exitCode(), verify.toString());
            assertTrue(verify.out().contains(shardName + ": ok"), verify.out());
        }
        assertEquals(-1L, Files.mismatch(shard, target.resolve(shardName)), "resumed shard equals the original");
    }

    /**
     * {@code tokenize --model REPO} reads the configuration and the tokenizer only: it fetches those (counted on
     * the hub), not the graphs and their gigabytes of external data, and prints the same ids as from the folder.
     */
    @Test
    void tokenizeByRepoIdFetchesOnlyTheConfigurationAndTokenizer() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        Path cache = work.resolve("hub-cache");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            Map<String, String> env = Map.of(
                    "HF_HUB_CACHE",
                    cache.toString(),
                    "HF_ENDPOINT",
                    hub.endpoint().toString());
            CliProcess.Result plain = CliProcess.run(
                    work, env, "tokenize", "--model", bundle.directory().toString(), "--prompt", "a red fox");
            assertEquals(0, plain.exitCode(), plain.toString());
            assertEquals(List.of(), hub.requests());

            CliProcess.Result byRepo = CliProcess.run(work, env, "tokenize", "--model", REPO, "--prompt", "a red fox");
            assertEquals(0, byRepo.exitCode(), byRepo.toString());
            assertEquals(plain.out(), byRepo.out(), "the same ids as from the folder");
            String prefix = "/" + REPO + "/resolve/";
            List<String> fetched = hub.requests().stream()
                    .filter(r -> r.server().equals("hub") && r.path().startsWith(prefix))
                    .map(r -> r.path().substring(prefix.length()).replaceFirst("^[^/]+/", ""))
                    .distinct()
                    .sorted()
                    .toList();
            assertTrue(fetched.contains("flux2-config.json"), fetched.toString());
            assertTrue(fetched.contains("tokenizer/tokenizer.json"), fetched.toString());
            assertTrue(
                    fetched.stream()
                            .noneMatch(p -> p.endsWith(".onnx") || p.contains(".onnx_data") || p.endsWith(".data")),
                    "no graph or weights fetched: " + fetched);
            assertEquals(
                    1,
                    hub.requests().stream()
                            .filter(r -> r.path().startsWith("/api/models/"))
                            .count(),
                    hub.requests().toString());

            hub.clearRequests();
            CliProcess.Result again =
                    CliProcess.run(work, env, "tokenize", "--model", REPO, "--prompt", "a red fox", "--offline");
            assertEquals(0, again.exitCode(), again.toString());
            assertEquals(List.of(), hub.requests(), "the second run makes no request");
        }
    }

    /**
     * {@code info --model REPO} fetches the configuration, manifests, tokenizer and graphs but no external data
     * (counted on the hub), and describes the same files and graphs as the folder, each shard checked against the
     * hub's listed size (detail {@code shard_sizes}); a second run makes no request.
     */
    @Test
    void infoByRepoIdFetchesNoExternalDataAndChecksTheShardsAgainstTheListing() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        List<String> shards = externalData(bundle.directory());
        assertTrue(shards.size() >= 2, shards.toString());
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            Map<String, String> env = hubEnv(hub);
            CliProcess.Result plain = CliProcess.run(
                    work, env, "info", "--json", "--model", bundle.directory().toString());
            assertEquals(0, plain.exitCode(), plain.toString());
            JsonNode folder = JSON.readTree(plain.out());
            assertTrue(folder.path("details").path("shard_sizes").isMissingNode(), plain.out());

            CliProcess.Result byRepo = CliProcess.run(work, env, "info", "--json", "--model", REPO);
            assertEquals(0, byRepo.exitCode(), byRepo.toString());
            List<String> fetched = fetched(hub);
            assertTrue(fetched.stream().anyMatch(p -> p.endsWith(".onnx")), fetched.toString());
            assertTrue(fetched.stream().noneMatch(shards::contains), "no external data fetched: " + fetched);
            JsonNode repo = JSON.readTree(byRepo.out());
            assertEquals(folder.get("files"), repo.get("files"), "the same files, sizes and problems as the folder");
            assertEquals(folder.get("graphs"), repo.get("graphs"));
            String listed = repo.path("details").path("shard_sizes").asText();
            assertTrue(listed.startsWith("checked against the hub's file list, not downloaded"), listed);
            for (String shard : shards) {
                assertTrue(listed.contains(shard), shard + " in " + listed);
            }
            assertEquals(
                    folder.path("details").path("session_weights"),
                    repo.path("details").path("session_weights"),
                    "the weights weighed from the listed sizes");

            hub.clearRequests();
            CliProcess.Result again = CliProcess.run(work, env, "info", "--json", "--model", REPO, "--offline");
            assertEquals(0, again.exitCode(), again.toString());
            assertEquals(List.of(), hub.requests(), "the second run makes no request");
            assertEquals(folder.get("files"), JSON.readTree(again.out()).get("files"));
        }
    }

    /**
     * A shard the hub lists shorter than its graph reads, and one it does not list, are reported by
     * {@code info --model REPO} (exit 3) as by the folder, without fetching either.
     */
    @Test
    void infoByRepoIdReportsAShardListedTooShortOrNotListed() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        Path shortShard = bundle.shardFiles("transformer").get(0);
        byte[] content = Files.readAllBytes(shortShard);
        Files.write(shortShard, java.util.Arrays.copyOf(content, content.length / 2));
        Path unlisted = bundle.shardFiles("text_encoder").get(0);
        Files.delete(unlisted);
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
            Map<String, String> env = hubEnv(hub);
            CliProcess.Result plain = CliProcess.run(
                    work, env, "info", "--json", "--model", bundle.directory().toString());
            assertEquals(3, plain.exitCode(), plain.toString());
            CliProcess.Result byRepo = CliProcess.run(work, env, "info", "--json", "--model", REPO);
            assertEquals(3, byRepo.exitCode(), byRepo.toString());
            List<String> shards = externalData(bundle.directory());
            assertTrue(
                    fetched(hub).stream().noneMatch(shards::contains),
                    fetched(hub).toString());
            String shortName = shortShard.getFileName().toString();
            String unlistedName = unlisted.getFileName().toString();
            assertTrue(byRepo.err().contains(shortName), byRepo.err());
            assertTrue(byRepo.err().contains(unlistedName), byRepo.err());
            assertTrue(byRepo.err().contains("has no size in the hub's file list"), byRepo.err());
            assertEquals(
                    badFiles(JSON.readTree(plain.out())),
                    badFiles(JSON.readTree(byRepo.out())),
                    "the same files reported, with the same sizes");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private Map<String, String> hubEnv(FakeHub hub) {
        return Map.of(
                "HF_HUB_CACHE",
                work.resolve("hub-cache").toString(),
                "HF_ENDPOINT",
                hub.endpoint().toString());
    }

    /** @return the repository paths fetched from the hub, distinct and sorted */
    private static List<String> fetched(FakeHub hub) {
        String prefix = "/" + REPO + "/resolve/";
        return hub.requests().stream()
                .filter(r -> r.server().equals("hub") && r.path().startsWith(prefix))
                .map(r -> r.path().substring(prefix.length()).replaceFirst("^[^/]+/", ""))
                .distinct()
                .sorted()
                .toList();
    }

    /** @return the external-data files of a folder, by path relative to it */
    private static List<String> externalData(Path folder) throws Exception {
        try (java.util.stream.Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .map(p -> folder.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> p.endsWith(".onnx_data") || p.endsWith(".data"))
                    .sorted()
                    .toList();
        }
    }

    /** @return "path size" of each file reported with a problem or missing */
    private static List<String> badFiles(JsonNode summary) {
        List<String> bad = new java.util.ArrayList<>();
        for (JsonNode f : summary.get("files")) {
            if (!f.path("problem").asText().isEmpty() || f.path("actualBytes").asLong() < 0) {
                bad.add(f.path("path").asText() + " " + f.path("actualBytes").asLong());
            }
        }
        assertTrue(!bad.isEmpty(), summary.toString());
        return bad;
    }
}
