package dev.flux2.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** What every {@code flux2} subcommand shares: {@code --verbose} and the output streams. */
abstract class BaseCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(
            names = {"-v", "--verbose"},
            description = "Print stack traces and debug logging.")
    boolean verbose;

    /** @return whether {@code --verbose} was given */
    boolean verbose() {
        return verbose;
    }

    /** @return the command's standard output */
    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** @return the command's standard error */
    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
