package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flux2-spark/run-local.sh} as a user runs it: the shaded job jar in Spark local mode, a separate JVM. */
class RunLocalScriptIT {
    private static final Path SCRIPT =
            Path.of(System.getProperty("flux2.spark.dir", ".")).resolve("run-local.sh");

    @TempDir
    Path work;

    private record Run(int code, String out, String err) {}

    private Run script(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        Path out = work.resolve("stdout.txt");
        Path err = work.resolve("stderr.txt");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("run-local.sh did not finish in 10 minutes");
        }
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void runsTheJobInLocalMode() throws IOException, InterruptedException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("m"));
        Path input = Files.writeString(work.resolve("requests.jsonl"), """
                {"id": "a1", "prompt": "a red fox", "seed": 1}
                {"id": "a2", "prompt": "a cat", "width": 32, "height": 48}
                {"id": "bad", "prompt": "x", "width": 1000}
                """);
        Path output = work.resolve("out");
        Run run = script(
                "--model",
                bundle.directory().toString(),
                "--input",
                input.toString(),
                "--output",
                output.toString(),
                "--parallelism",
                "2");
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().startsWith("flux2-batch: 3 rows: 2 ok, 0 skipped, 1 failed; images in "), run.out());
        assertEquals(List.of("a1.png", "a2.png"), Images.names(output.resolve("images")));
        assertEquals(3, Files.readAllLines(output.resolve("results.jsonl")).size());
        assertTrue(Files.isDirectory(output.resolve("results")));
    }

    @Test
    void usageErrorsExitWith2() throws IOException, InterruptedException {
        Run parallelism = script("--parallelism", "0", "--model", "m", "--input", "i", "--output", "o");
        assertEquals(2, parallelism.code());
        assertEquals(
                "run-local.sh: --parallelism must be a positive integer, found '0'",
                parallelism.err().strip());
    }
}
