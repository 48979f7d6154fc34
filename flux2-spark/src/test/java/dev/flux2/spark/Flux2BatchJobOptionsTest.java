package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Option parsing of the job: answered before any Spark session is touched (so none is given). */
class Flux2BatchJobOptionsTest {
    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Flux2BatchJob.run(
                null,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void helpListsTheOptionsAndExitCodes() {
        Run help = run("--help");
        assertEquals(0, help.code());
        for (String option : new String[] {"--model", "--input", "--output", "--concurrency", "--fail-fast"}) {
            assertTrue(help.out().contains(option), help.out());
        }
        assertTrue(help.out().contains("Exit codes"), help.out());
    }

    @Test
    void usageErrorsAreOneLineWithExitCode2() {
        Run missing = run("--model", "m", "--input", "i.jsonl");
        assertEquals(2, missing.code());
        assertTrue(missing.err().startsWith("flux2-batch: Missing required option: '--output=URI'"), missing.err());
        assertEquals(1, missing.err().strip().lines().count(), missing.err());

        Run unknown = run("--model", "m", "--input", "i", "--output", "o", "--bogus");
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("Unknown option: '--bogus'"), unknown.err());

        Run number = run("--model", "m", "--input", "i", "--output", "o", "--concurrency", "two");
        assertEquals(2, number.code());
        assertTrue(number.err().contains("--concurrency"), number.err());

        Run zero = run("--model", "m", "--input", "i", "--output", "o", "--concurrency", "0");
        assertEquals(2, zero.code());
        assertEquals(
                "flux2-batch: concurrency must be >= 1, found 0 (try --help)",
                zero.err().strip());
    }

    @Test
    void thePluginIsAddedOnceToThePluginsAlreadyListed() {
        String plugin = Flux2SparkPlugin.class.getName();
        assertEquals(plugin, Flux2BatchJob.withPlugin(""));
        assertEquals("a.B," + plugin, Flux2BatchJob.withPlugin("a.B"));
        assertEquals(plugin + ",a.B", Flux2BatchJob.withPlugin(plugin + ", a.B"));
    }
}
