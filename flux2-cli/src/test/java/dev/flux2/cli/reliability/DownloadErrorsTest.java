package dev.flux2.cli.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.cli.CliHarness;
import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure class "downloads that stay broken" (a non-pinned repository, verified against the hub's ETags): a
 * corrupted transfer or an HTML page instead of the file is a model error (exit 3) naming the file, and the next run
 * fetches it again and succeeds.
 */
class DownloadErrorsTest {
    private static final String REPO = "flux2-test/klein-broken";
    private static final String COMMIT = "89abcdef0123456789abcdef0123456789abcdef";

    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
    }

    @Test
    void aCorruptedOrHtmlTransferNamesTheFileAndTheNextRunRepairsIt() throws Exception {
        String shard = bundle.directory()
                .relativize(bundle.shardFiles("transformer").get(0))
                .toString();
        Path target = work.resolve("dir");
        try (FakeHub hub = new FakeHub().publish(REPO, COMMIT, bundle.directory())) {
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
            hub.inject(shard, FakeHub.Fault.CORRUPT, 0);
            CliHarness.Run corrupt = CliHarness.run(args);
            assertEquals(3, corrupt.exitCode(), corrupt.toString());
            assertTrue(corrupt.err().contains(shard), corrupt.err());

            CliHarness.Run repaired = CliHarness.run(args);
            assertEquals(0, repaired.exitCode(), repaired.toString());
            assertEquals(
                    0, CliHarness.run("verify", "--model", target.toString()).exitCode());

            hub.inject("flux2-config.json", FakeHub.Fault.HTML, 0);
            String[] other = args.clone();
            other[5] = work.resolve("dir-html").toString();
            CliHarness.Run html = CliHarness.run(other);
            assertEquals(3, html.exitCode(), html.toString());
            assertTrue(html.err().contains("flux2-config.json"), html.err());
        }
    }
}
