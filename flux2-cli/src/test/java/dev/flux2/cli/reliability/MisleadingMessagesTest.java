package dev.flux2.cli.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.cli.CliHarness;
import dev.flux2.hub.ModelNames;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24, "misleading or internal messages" and "late validation": every refusal names the real cause and the
 * file. A deeply nested or oversized config, a folder, FIFO or {@code /dev/zero} link where a config, graph or shard
 * should be, a model path that is a file, a consistently short shard, an overflowing width, too many threads; each
 * as the CLI reports it, on fresh copies of one synthetic bundle.
 */
class MisleadingMessagesTest {
    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static Path copyOf(String name) throws IOException {
        Path target = work.resolve(name);
        try (Stream<Path> files = Files.walk(bundle.directory())) {
            for (Path p : files.toList()) {
                Path dest = target.resolve(bundle.directory().relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(p, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }

    private static CliHarness.Run info(Path model) {
        return CliHarness.run("info", "--model", model.toString());
    }

    private static void assertModelError(CliHarness.Run r, String... parts) {
        assertEquals(3, r.exitCode(), r.toString());
        assertFalse(r.err().contains("NullPointerException"), r.err());
        for (String part : parts) {
            assertTrue(r.err().contains(part), "missing '" + part + "' in: " + r.err());
        }
    }

    @Test
    void aDeeplyNestedConfigIsNotANullPointerException() throws IOException {
        Path model = copyOf("nested");
        Path config = model.resolve("flux2-config.json");
        String original = Files.readString(config);
        String nested = "[".repeat(5000) + "]".repeat(5000);
        Files.writeString(config, "{\"notes\": " + nested + "," + original.substring(original.indexOf('{') + 1));
        assertModelError(info(model), "flux2-config.json", "not valid JSON", "nesting depth");
    }

    @Test
    void aHugeConfigIsRefusedNamingTheLimit() throws IOException {
        Path model = copyOf("huge-config");
        Path config = model.resolve("flux2-config.json");
        String original = Files.readString(config);
        Files.writeString(config, " ".repeat(5 << 20) + original);
        assertModelError(info(model), "flux2-config.json", "limit of 4194304 bytes");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aFifoAFolderAndADeviceLinkAreNamedNotReportedMissing() throws Exception {
        Path model = copyOf("special-files");
        Path shard = model.resolve(bundle.directory()
                .relativize(bundle.shardFiles("transformer").get(0))
                .toString());
        Files.delete(shard);
        assertEquals(0, new ProcessBuilder("mkfifo", shard.toString()).start().waitFor());
        CliHarness.Run fifo = info(model);
        assertModelError(fifo, shard.getFileName().toString(), "FIFO, socket or device");
        assertFalse(
                fifo.err().contains(shard.getFileName() + " (listed in")
                        && fifo.err().contains("is missing"),
                fifo.err());

        Path folderModel = copyOf("folder-graph");
        Path graph = folderModel.resolve("flux2-klein-4b-vae-encoder-fp16.onnx");
        Files.delete(graph);
        Files.createDirectory(graph);
        assertModelError(info(folderModel), "flux2-klein-4b-vae-encoder-fp16.onnx", "is not a file but a folder");

        Path zeroModel = copyOf("zero-config");
        Path config = zeroModel.resolve("flux2-config.json");
        Files.delete(config);
        Files.createSymbolicLink(config, Path.of("/dev/zero"));
        CliHarness.Run zero = info(zeroModel);
        assertEquals(3, zero.exitCode(), zero.toString());
        assertTrue(zero.err().contains("/dev/zero") || zero.err().contains("device"), zero.err());
        assertFalse(zero.err().contains("does not exist"), zero.err());
    }

    @Test
    void aModelPathThatIsAFileIsSaidToBeAFile() throws IOException {
        Path file = Files.writeString(work.resolve("model.txt"), "not a folder");
        CliHarness.Run r = info(file);
        assertModelError(r, file.toString(), "is a file");
        assertFalse(r.err().contains("does not exist"), r.err());
    }

    @Test
    void aShortShardIsReportedWithItsSizesNotMinusOne() throws IOException {
        Path model = copyOf("short-shard");
        Path shard = model.resolve(bundle.directory()
                .relativize(bundle.shardFiles("transformer").get(1))
                .toString());
        try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
            f.setLength(f.length() - 3);
        }
        List<String> problems = Flux2Models.check(model);
        assertFalse(problems.isEmpty());
        for (String p : problems) {
            assertFalse(p.contains("expected -1 bytes"), p);
        }
        assertTrue(String.join("\n", problems).contains(shard.getFileName() + " is "), problems.toString());
    }

    @Test
    void anOverflowingWidthNamesMaxSideBeforeTheModelLoads() {
        CliHarness.Run r = CliHarness.run(
                "generate", "--model", work.resolve("no-such-model").toString(), "--prompt", "x", "-W", "2147483647");
        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.err().contains("maxSide") && r.err().contains("2147483647"), r.err());
        assertFalse(r.err().contains("nearest valid width: 16)"), r.err());
    }

    @Test
    void moreThreadsThanProcessorsAreCappedWithOneWarning() {
        int cores = Runtime.getRuntime().availableProcessors();
        CliHarness.Run r = CliHarness.run(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "x",
                "--seed",
                "1",
                "-W",
                "64",
                "-H",
                "48",
                "-t",
                "1024",
                "--no-progress",
                "--output",
                work.resolve("threads.png").toString());
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(r.err().contains("flux2: warning: --threads 1024 is more than the " + cores), r.err());
        assertEquals(1, r.err().split("--threads 1024", -1).length - 1, r.err());
    }

    @Test
    void anUnavailableProviderNamesTheCliFlag() {
        CliHarness.Run r = CliHarness.run(
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "x",
                "--seed",
                "1",
                "-W",
                "64",
                "-H",
                "48",
                "--provider",
                "cuda",
                "--no-progress",
                "--output",
                work.resolve("cuda.png").toString());
        // Without the CUDA runtime installed (and on the CPU jar): the native library is missing, exit 5.
        assertEquals(5, r.exitCode(), r.toString());
        assertTrue(r.err().contains("--allow-fallback"), r.err());
        assertTrue(r.err().contains("flux2 runtime install cuda"), r.err());
    }

    @Test
    void helpTextsKeepThePinnedCommitWholeAndStateTheStrengthDefault() {
        for (String command : new String[] {"download", "generate"}) {
            CliHarness.Run help = CliHarness.run(command, "--help");
            assertEquals(0, help.exitCode(), help.toString());
            assertTrue(help.out().contains(ModelNames.DEFAULT_MODEL_COMMIT), help.out());
        }
        CliHarness.Run generate = CliHarness.run("generate", "--help");
        // The documented default (docs/limits.md §5): 0.8, or (n-1)/n when 0.8 starts at sigma = 1 (4 steps: 0.75).
        assertTrue(generate.out().replaceAll("\\s+", " ").contains("0.75 for 4 steps"), generate.out());
    }
}
