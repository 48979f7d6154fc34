package dev.flux2.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code java ARGS} as a separate JVM in a hermetic environment (no hub cache, token or endpoint of the user's,
 * DJL offline), as a user runs an example.
 */
public final class JavaProcess {
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

    private JavaProcess() {}

    /**
     * @param workDir the working directory, which also holds the captured output and the {@code HF_HOME}
     * @param args the JVM's arguments after the heap and headless options
     * @return the started process, its output going to {@code stdout*.txt} and {@code stderr*.txt} in workDir
     * @throws IOException when the process cannot start
     */
    public static Process start(Path workDir, Path out, Path err, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx1g");
        cmd.add("-Djava.awt.headless=true");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(workDir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().put("DJL_OFFLINE", "true");
        pb.environment().put("OPT_OUT_TRACKING", "true");
        pb.environment().put("RUST_FLAVOR", "cpu");
        pb.environment().keySet().removeIf(k -> k.startsWith("HF_") || k.startsWith("HUGGING"));
        pb.environment().put("HF_HOME", workDir.resolve("hf-home").toString());
        return pb.start();
    }

    /**
     * @param workDir the working directory
     * @param args the JVM's arguments
     * @return the exit code and the captured output, after the process ended (within 180 s)
     * @throws IOException when the process cannot start or its output cannot be read
     * @throws InterruptedException when interrupted while waiting
     */
    public static Result run(Path workDir, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "stdout", ".txt");
        Path err = Files.createTempFile(workDir, "stderr", ".txt");
        Process p = start(workDir, out, err, args);
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("java " + String.join(" ", args) + " did not finish within 180 s");
        }
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
