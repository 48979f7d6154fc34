package dev.flux2.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * Runs the {@code flux2} CLI in-process with captured output, for the CLI tests and the reliability suite (public
 * for the latter, which lives in another package). {@link CliProcess} runs it as a separate JVM instead.
 */
public final class CliHarness {
    /**
     * One run's result.
     *
     * @param exitCode the exit code {@code execute} returned
     * @param out what the command printed on its standard output
     * @param err what the command printed on its standard error
     */
    public record Run(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "\n--- err\n" + err;
        }
    }

    private CliHarness() {}

    /**
     * @param args the command line, for example {@code "generate", "--prompt", "x"}
     * @return the exit code and the captured output
     */
    public static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = Flux2Cli.newCommandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
