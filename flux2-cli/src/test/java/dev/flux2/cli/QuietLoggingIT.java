package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar keeps stderr for the user: a successful run of {@code flux2 generate} on a synthetic bundle prints
 * no log line at all (flux2-examples' {@code ModulePathIT} checks the same of {@code MinimalExample}), in particular neither DJL's "Failed to
 * detect GPU count" (its CUDA probe while the tokenizer loads, on hosts with CUDA libraries but no driver) nor an
 * SLF4J provider warning ({@code SLF4J(W): …}, printed when no or several logging providers are found).
 */
class QuietLoggingIT {
    /** What slf4j-simple and SLF4J itself put at the start of their lines. */
    private static final List<String> LOG_MARKERS = List.of("SLF4J", "[main]", " WARN ", " INFO ", " ERROR ");

    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static void assertNoLogLines(CliProcess.Result r) {
        assertTrue(!r.err().contains("Failed to detect GPU count"), "DJL's CUDA probe warning reached stderr:\n" + r);
        for (String line : r.err().lines().toList()) {
            for (String marker : LOG_MARKERS) {
                assertTrue(!line.contains(marker), "a log line reached stderr: " + line + "\n" + r);
            }
        }
    }

    @Test
    void generatePrintsNoLogLines() throws Exception {
        Path png = work.resolve("quiet.png");
        CliProcess.Result r = CliProcess.run(
                work,
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "a red fox",
                "--seed",
                "3",
                "--output",
                png.toString(),
                "--no-progress");
        assertEquals(0, r.exitCode(), r.toString());
        assertTrue(Files.size(png) > 0, r.toString());
        assertNoLogLines(r);
    }

    @Test
    void aLibraryWarningIsPrintedOnceInTheClisWords() throws Exception {
        // Issue #24: the guidance warning came twice, as a logger line and as "flux2: warning:".
        CliProcess.Result r = CliProcess.run(
                work,
                "generate",
                "--model",
                bundle.directory().toString(),
                "--prompt",
                "a red fox",
                "--seed",
                "3",
                "--guidance",
                "4",
                "--output",
                work.resolve("guided.png").toString(),
                "--no-progress");
        assertEquals(0, r.exitCode(), r.toString());
        assertNoLogLines(r);
        assertEquals(1, r.err().split("Guidance 4.0 is ignored", -1).length - 1, r.toString());
        assertTrue(r.err().contains("flux2: warning: Guidance 4.0 is ignored"), r.toString());
    }
}
