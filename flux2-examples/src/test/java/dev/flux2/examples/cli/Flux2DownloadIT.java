package dev.flux2.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.examples.testing.LoopbackHubServer;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flux2 download} as a separate process against a loopback hub serving a synthetic bundle: a transfer cut
 * mid-shard fails with exit 3 and keeps its {@code .part}; the second run resumes with a Range request; the result
 * generates the same image as the original bundle.
 */
class Flux2DownloadIT {
    private static final String REPO = "tester/synthetic-flux2";
    private static final String REV = "feedc0de00000000000000000000000000000000";

    @TempDir
    Path work;

    @Test
    void interruptedDownloadResumesAndTheBundleGenerates() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("origin"));
        Path shard = bundle.shardFiles("transformer").get(0);
        String shardName = shard.getFileName().toString();
        long cut = Files.size(shard) / 2;
        Path target = work.resolve("downloaded");
        try (LoopbackHubServer hub = new LoopbackHubServer(bundle.directory(), REPO, REV)) {
            hub.cutOnceAfter(shardName, cut);
            String[] args = {
                "download",
                "--endpoint",
                hub.endpoint().toString(),
                "--repo",
                REPO,
                "--revision",
                REV,
                "--dir",
                target.toString(),
                "--retries",
                "0"
            };

            CliProcess.Result first = CliProcess.run(work, args);
            assertEquals(3, first.exitCode(), first.toString());
            assertTrue(first.err().contains(shardName) && first.err().contains("resume"), first.err());
            // Bytes in flight when the connection drops may be lost, never more than the server sent.
            long kept = Files.size(target.resolve(shardName + ".part"));
            assertTrue(kept > 0 && kept <= cut, "kept " + kept + " of the " + cut + " bytes sent");

            CliProcess.Result second = CliProcess.run(work, args);
            assertEquals(0, second.exitCode(), second.toString());
            assertTrue(second.out().contains("bundle ready"), second.out());
            assertTrue(second.out().contains("resumed at " + kept), second.out());
            assertTrue(
                    hub.requests().stream()
                            .anyMatch(r ->
                                    r.path().endsWith("/" + shardName) && ("bytes=" + kept + "-").equals(r.range())),
                    hub.requests().toString());
        }
        assertEquals(Files.mismatch(shard, target.resolve(shardName)), -1L, "resumed shard equals the original");

        Path a = work.resolve("a.png");
        Path b = work.resolve("b.png");
        for (Object[] run : new Object[][] {{bundle.directory(), a}, {target, b}}) {
            CliProcess.Result r = CliProcess.run(
                    work,
                    "generate",
                    "--model",
                    run[0].toString(),
                    "--prompt",
                    "fox",
                    "--seed",
                    "5",
                    "--output",
                    run[1].toString(),
                    "--no-progress");
            assertEquals(0, r.exitCode(), r.toString());
        }
        BufferedImage ia = ImageIO.read(a.toFile());
        BufferedImage ib = ImageIO.read(b.toFile());
        for (int y = 0; y < ia.getHeight(); y++) {
            for (int x = 0; x < ia.getWidth(); x++) {
                assertEquals(ia.getRGB(x, y), ib.getRGB(x, y), "pixel " + x + "," + y);
            }
        }
    }
}
