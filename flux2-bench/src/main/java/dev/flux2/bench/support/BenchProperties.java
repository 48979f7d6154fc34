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
}
