package dev.flux2.bench.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The system properties the benchmarks read (pass them to forked JVMs with {@code -jvmArgsAppend}).
 */
public final class BenchProperties {
    /** A real bundle directory; when set, benchmarks run on it instead of a synthetic bundle. */
    public static final String MODEL = "flux2.model";
    /** The shared directory holding {@code fixtures/qwen3-tokenizer} (default {@code ../shared}). */
    public static final String SHARED_DIR = "flux2.shared.dir";

    private BenchProperties() {}

    /** @return the real bundle directory from {@code -Dflux2.model}, if given */
    public static Optional<Path> realModel() {
        String value = System.getProperty(MODEL);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        Path dir = Path.of(value).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("-D" + MODEL + "=" + value + " is not a directory");
        }
        return Optional.of(dir);
    }

    /**
     * @return the directory of the Qwen3 tokenizer fixture
     * @throws IllegalStateException when neither {@code -Dflux2.shared.dir} nor {@code ../shared} holds it
     */
    public static Path tokenizerFixture() {
        String shared = System.getProperty(SHARED_DIR);
        Path base = shared != null && !shared.isBlank() ? Path.of(shared) : Path.of("..", "shared");
        Path dir = base.resolve("fixtures")
                .resolve("qwen3-tokenizer")
                .toAbsolutePath()
                .normalize();
        if (!Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw new IllegalStateException("tokenizer fixture not found at " + dir + "; pass -D" + SHARED_DIR
                    + "=<dir containing fixtures/qwen3-tokenizer> (to forked JVMs: -jvmArgsAppend)");
        }
        return dir;
    }
}
