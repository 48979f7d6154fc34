package dev.flux2.cli;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code flux2} command line: {@code generate}, {@code tokenize}, {@code info}, {@code download} and
 * {@code verify}, {@code runtime}.
 * Exit codes are listed in {@link ExitCodes}.
 */
@Command(
        name = "flux2",
        mixinStandardHelpOptions = true,
        versionProvider = Flux2Cli.Version.class,
        description = "Run FLUX.2 [klein] image generation locally on ONNX Runtime.",
        subcommands = {
            GenerateCommand.class,
            TokenizeCommand.class,
            InfoCommand.class,
            DownloadCommand.class,
            VerifyCommand.class,
            RuntimeCommand.class,
            ServeCommand.class,
            CommandLine.HelpCommand.class
        },
        exitCodeOnInvalidInput = ExitCodes.USAGE,
        exitCodeOnExecutionException = ExitCodes.SOFTWARE,
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:unexpected failure (e.g. output not writable)",
            "2:usage error or invalid request",
            "3:model/bundle error (also a failed download)",
            "4:generation failed",
            "5:ONNX Runtime library missing, corrupt, of another version or in conflict (also a failed runtime install)",
            "130:cancelled (Ctrl-C)"
        })
public final class Flux2Cli implements Runnable {
    private static final Set<String> VERBOSE_FLAGS = Set.of("-v", "--verbose");

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(), "missing command: generate, tokenize, info, download, verify, runtime or serve");
    }

    /**
     * Runs the command line and exits the JVM with its exit code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        boolean verbose = Arrays.stream(args).anyMatch(VERBOSE_FLAGS::contains);
        configureLogging(verbose);
        if (!verbose && !ProgressSwitch.stderrIsTerminal()) {
            // ONNX Runtime's logger colours its lines whatever stderr is: into a file or pipe only its fatal ones
            // (every error reaches us as an exception and is reported as one line); --verbose keeps its warnings.
            System.getProperties().putIfAbsent(OrtNativeLibrary.LOG_LEVEL_PROPERTY, "fatal");
        }
        String[] decoded;
        try {
            // Under LC_ALL=POSIX the JVM turned every non-ASCII byte of argv into '?': a different prompt.
            decoded = ArgvEncoding.recover(args);
        } catch (InvalidRequestException e) {
            ErrorReporter.report(new PrintWriter(System.err, true), e, false);
            System.exit(ExitCodes.USAGE);
            return;
        }
        System.exit(newCommandLine().execute(decoded));
    }

    /** @return a command line with this CLI's error handling and option conventions, writing to System.out/err */
    public static CommandLine newCommandLine() {
        ErrorReporter reporter = new ErrorReporter();
        return new CommandLine(new Flux2Cli())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(reporter)
                .setParameterExceptionHandler(reporter);
    }

    /**
     * Quiet logging is the default of the jar ({@code simplelogger.properties}: warnings only, DJL's CUDA probe
     * silenced), each warning one {@code flux2: warning: …} line; {@code --verbose} turns on debug logging with
     * logger names and DJL's CUDA warnings. A system property the user set wins.
     */
    private static void configureLogging(boolean verbose) {
        if (verbose) {
            setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "debug");
            setIfAbsent("org.slf4j.simpleLogger.log.ai.djl.util.cuda.CudaUtils", "warn");
            return;
        }
        // A library warning reads like the CLI's own ("flux2: warning: …"), not as a logger line beside it.
        setIfAbsent("org.slf4j.simpleLogger.showLogName", "false");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "false");
        setIfAbsent("org.slf4j.simpleLogger.warnLevelString", "flux2: warning:");
        // These warnings are also in GenerationMetadata.warnings(), which generate prints once after generating.
        setIfAbsent("org.slf4j.simpleLogger.log.dev.flux2.pipeline.RequestResolver", "error");
        setIfAbsent("org.slf4j.simpleLogger.log.dev.flux2.pipeline.TextConditioning", "error");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** Reports the jar's implementation version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Flux2Cli.class.getPackage().getImplementationVersion();
            return new String[] {
                "flux2-java " + (v == null ? "(development build)" : v),
                "Java " + System.getProperty("java.version") + " on " + System.getProperty("os.name") + " "
                        + System.getProperty("os.arch")
            };
        }
    }
}
