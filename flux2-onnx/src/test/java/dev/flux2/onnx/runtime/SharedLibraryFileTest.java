package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #33: {@code FLUX2_ORT_LIBRARY} naming a truncated copy of {@code libonnxruntime.so} (a partial download)
 * killed the JVM with SIGBUS in the dynamic loader. The real library of the ONNX Runtime jar, whole and cut at
 * several points, against the header check that now runs before the loader.
 */
class SharedLibraryFileTest {
    private static final String JAR_LIBRARY = "/ai/onnxruntime/native/linux-x64/libonnxruntime.so";

    @TempDir
    Path dir;

    private Path whole;

    @BeforeEach
    void copyTheJarsLibrary() throws IOException {
        try (InputStream in = SharedLibraryFileTest.class.getResourceAsStream(JAR_LIBRARY)) {
            assumeTrue(in != null, "the ONNX Runtime jar has no linux-x64 library on this class path");
            whole = dir.resolve("libonnxruntime.so");
            Files.copy(in, whole);
        }
    }

    private Path cut(double fraction) throws IOException {
        Path copy = Files.copy(whole, dir.resolve("cut-" + fraction + ".so"));
        try (RandomAccessFile f = new RandomAccessFile(copy.toFile(), "rw")) {
            f.setLength((long) (f.length() * fraction));
        }
        return copy;
    }

    @Test
    void theWholeLibraryPasses() throws IOException {
        assertEquals(Optional.empty(), SharedLibraryFile.problem(whole));
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.999, 0.9, 0.5, 0.1, 0.0001, 0.000001})
    void aTruncatedCopyIsRefusedBeforeTheLoaderMapsIt(double fraction) throws IOException {
        Path truncated = cut(fraction);

        Optional<String> problem = SharedLibraryFile.problem(truncated);

        assertTrue(problem.isPresent(), "cut to " + Files.size(truncated) + " bytes");
        assertTrue(problem.get().startsWith("is truncated or corrupt: "), problem.get());
        assertTrue(problem.get().contains("but the file has " + Files.size(truncated) + " bytes"), problem.get());
    }

    @Test
    void somethingElseIsNoSharedLibrary() throws IOException {
        Path page = Files.writeString(dir.resolve("libonnxruntime.html"), "<html>404</html>");
        assertTrue(SharedLibraryFile.problem(page).orElseThrow().startsWith("is not a shared library"));
    }

    @Test
    void theEnvironmentRefusesATruncatedLibraryWithARuntimeError() throws IOException {
        Path truncated = cut(0.5);
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> OrtNativeLibrary.environment(
                        new OrtNativeLibrary.Choice(Optional.of(truncated), "FLUX2_ORT_LIBRARY")));
        // Refused by the check (when ONNX Runtime is not running yet in this JVM) or as a conflict with the one
        // running; never mapped.
        assertTrue(
                e.getMessage().contains("is truncated or corrupt")
                        || e.getMessage().contains("chosen once per JVM"),
                e.getMessage());
    }
}
