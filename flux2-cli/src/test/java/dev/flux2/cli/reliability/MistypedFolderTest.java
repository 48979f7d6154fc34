package dev.flux2.cli.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.cli.CliHarness;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #33: a mistyped relative folder ({@code --model target/demo-bundel}) was taken for a repo id and ended in a
 * network error that never said the folder does not exist. Every command that takes {@code --model} now names the
 * missing folder (exit 3) before any request; the rule itself is tested in flux2-core's {@code ModelLocatorTest}.
 */
class MistypedFolderTest {
    @ParameterizedTest
    @ValueSource(strings = {"info", "tokenize", "generate"})
    void aMistypedFolderBelowAnExistingOneIsReportedAsMissing(String command) {
        // src exists in the module folder the tests run in, as target does where a user builds the demo bundle.
        CliHarness.Run r = switch (command) {
            case "info" -> CliHarness.run(command, "--model", "src/demo-bundel");
            case "tokenize" -> CliHarness.run(command, "--model", "src/demo-bundel", "--prompt", "a fox");
            default -> CliHarness.run(command, "--model", "src/demo-bundel", "--prompt", "a fox", "--no-progress");
        };

        assertEquals(3, r.exitCode(), r.toString());
        assertTrue(
                r.err().contains("model folder " + Path.of("src/demo-bundel").toAbsolutePath() + " does not exist"),
                r.err());
        assertTrue(r.err().contains("its first part 'src' is an existing folder"), r.err());
    }
}
