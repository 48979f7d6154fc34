package dev.flux2.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the shaded CLI jar ({@code flux2.cli.jar}, set by failsafe) as a separate JVM, as a user would, or any other
 * {@code java} command line ({@link #java}) with the same hermetic environment (public for the tests of other
 * packages). {@link CliHarness} runs the CLI in-process instead.
 */
public final class CliProcess {
    /**
     * One finished run.
     *
     * @param exitCode the process's exit code
     * @param out its standard output
     * @param err its standard error
     */
    public record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private CliProcess() {}

    static Path jar() {
        String prop = System.getProperty("flux2.cli.jar");
        Path jar = prop != null ? Path.of(prop) : Path.of("target", "flux2.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: run 'mvn verify' (the *IT tests run"
                    + " after 'package' builds the shaded jar)");
        }
        return jar;
    }

    /**
     * Runs {@code java -Xmx1g -Djava.awt.headless=true ARGS} in the environment the CLI runs get, for example a
     * program on a module path.
     *
     * @param workDir the working directory, which also holds the captured output and the {@code HF_HOME}
     * @param args the JVM's arguments after the heap and headless options
     * @return the exit code and the captured output
     * @throws IOException when the process cannot start or its output cannot be read
     * @throws InterruptedException when interrupted while waiting
     */
    public static Result java(Path workDir, String... args) throws IOException, InterruptedException {
        return await(workDir, List.of(args), Map.of(), "java " + String.join(" ", args));
    }

    static Result run(Path workDir, String... args) throws IOException, InterruptedException {
        return run(workDir, Map.of(), args);
    }

    /** Runs the CLI with extra environment variables (for example HF_HUB_CACHE and HF_ENDPOINT). */
    static Result run(Path workDir, Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> launch =
                new ArrayList<>(List.of("-jar", jar().toAbsolutePath().toString()));
        launch.addAll(List.of(args));
        return await(workDir, launch, env, "flux2 " + String.join(" ", args));
    }

    private static Result await(Path workDir, List<String> launch, Map<String, String> env, String what)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "stdout", ".txt");
        Path err = Files.createTempFile(workDir, "stderr", ".txt");
        Process p = launch(workDir, out, err, launch, env);
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(what + " did not finish within 180 s");
        }
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts the CLI with stdout and stderr going to files; the caller waits for it. */
    static Process start(Path workDir, Path out, Path err, String... args) throws IOException {
        return start(workDir, out, err, Map.of(), args);
    }

    /** Starts the CLI with extra environment variables; the caller waits for it. */
    static Process start(Path workDir, Path out, Path err, Map<String, String> env, String... args) throws IOException {
        List<String> launch =
                new ArrayList<>(List.of("-jar", jar().toAbsolutePath().toString()));
        launch.addAll(List.of(args));
        return launch(workDir, out, err, launch, env);
    }

    private static Process launch(Path workDir, Path out, Path err, List<String> launch, Map<String, String> env)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx1g");
        cmd.add("-Djava.awt.headless=true");
        cmd.addAll(launch);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().put("DJL_OFFLINE", "true");
        pb.environment().put("OPT_OUT_TRACKING", "true");
        pb.environment().put("RUST_FLAVOR", "cpu");
        // Never the user's hub cache, token or endpoint: tests pass their own.
        pb.environment().keySet().removeIf(k -> k.startsWith("HF_") || k.startsWith("HUGGING"));
        pb.environment().put("HF_HOME", workDir.resolve("hf-home").toString());
        pb.environment().putAll(env);
        return pb.start();
    }
}
