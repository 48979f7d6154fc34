package dev.flux2.cli;

import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns failures into one line on stderr and an {@link ExitCodes exit code}; the stack trace follows only with
 * {@code --verbose}. Used by the {@code flux2} command line and the image service's launcher.
 */
final class ErrorReporter implements IExecutionExceptionHandler, IParameterExceptionHandler {
    /** Creates a reporter (stateless). */
    public ErrorReporter() {
        // One instance serves both picocli handlers.
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        report(commandLine.getErr(), ex, commandLine.getCommand() instanceof BaseCommand base && base.verbose());
        return ExitCodes.of(ex);
    }

    /**
     * Prints one line for a failure, plus the stack trace when verbose.
     *
     * @param err where to print
     * @param ex the failure
     * @param verbose whether to add the stack trace
     */
    static void report(PrintWriter err, Throwable ex, boolean verbose) {
        err.println("flux2: " + label(ex) + message(ex));
        if (verbose) {
            ex.printStackTrace(err);
        }
        err.flush();
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("flux2: " + ex.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return ExitCodes.USAGE;
    }

    private static String label(Throwable ex) {
        if (ex instanceof GenerationCancelledException) {
            return "cancelled: ";
        }
        if (ex instanceof InvalidRequestException || ex instanceof IllegalArgumentException) {
            return "invalid request: ";
        }
        if (ex instanceof dev.flux2.onnx.runtime.RuntimeLibraryException) {
            return "runtime error: ";
        }
        if (ex instanceof ModelLoadException) {
            return "model error: ";
        }
        if (ex instanceof dev.flux2.api.Flux2Exception) {
            return "generation failed: ";
        }
        return "error: ";
    }

    private static String message(Throwable ex) {
        String m = ex.getMessage();
        String text = m == null || m.isBlank() ? ex.getClass().getName() : m;
        if (ex instanceof java.nio.file.FileSystemException fs && fs.getReason() == null) {
            // Its message is only the path ("/x.png"): say what kind of failure it was.
            text = text + " (" + dev.flux2.cli.ImageFileWriter.reason(fs) + ")";
        }
        // One line: multi-line runtime messages (ONNX Runtime's) are joined.
        return text.replaceAll("\\s*\\R\\s*", " | ").trim();
    }
}
