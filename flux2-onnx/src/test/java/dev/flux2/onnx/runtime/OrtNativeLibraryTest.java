package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.onnx.session.SharedEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The library choice and its conflicts, in a JVM where ONNX Runtime runs on the jar's library. */
class OrtNativeLibraryTest {
    @TempDir
    Path dir;

    @Test
    void theOptionWinsAndWebGpuNeedsTheInstalledRuntime() {
        OrtNativeLibrary.Choice c = OrtNativeLibrary.choose(Optional.of("/opt/ort/libonnxruntime.so"), true, dir);
        assertEquals(Optional.of(Path.of("/opt/ort/libonnxruntime.so")), c.library());
        assertEquals("backend option ort_library", c.reason());
        if (System.getenv(OrtNativeLibrary.LIBRARY_ENV) == null) {
            assertEquals(OrtNativeLibrary.Choice.ANY, OrtNativeLibrary.choose(Optional.empty(), false, dir));
            RuntimeLibraryException e = assertThrows(
                    RuntimeLibraryException.class, () -> OrtNativeLibrary.choose(Optional.empty(), true, dir));
            assertTrue(e.getMessage().contains("flux2 runtime install webgpu"), e.getMessage());
        }
    }

    @Test
    void anotherLibraryOnceOnnxRuntimeRunsIsAConflictNamingBoth() throws IOException {
        SharedEnvironment.get();
        Path other = Files.write(dir.resolve("libonnxruntime.so.1"), FakePackage.LIBRARY);
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> OrtNativeLibrary.environment(new OrtNativeLibrary.Choice(Optional.of(other), "a test")));
        assertTrue(e.getMessage().contains(other.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("chosen once per JVM"), e.getMessage());
        assertTrue(e.getMessage().contains("already runs on"), e.getMessage());
        // Any library is fine: the one loaded.
        OrtNativeLibrary.environment(OrtNativeLibrary.Choice.ANY);
    }
}
