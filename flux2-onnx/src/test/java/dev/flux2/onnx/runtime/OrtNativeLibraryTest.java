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

    @Test
    void cudaNeedsTheInstalledRuntimeOrTheClassPathsGpuNativesAndNotWebGpuBeside() {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                System.getenv(OrtNativeLibrary.LIBRARY_ENV) == null
                        && System.getProperty(CudaRuntime.NATIVE_PATH_PROPERTY) == null,
                "no library named by the environment");
        // This module's tests run on the onnxruntime (CPU) jar: no GPU natives on the class path.
        assertEquals(Optional.empty(), CudaRuntime.classpathNatives());
        RuntimeLibraryException missing = assertThrows(
                RuntimeLibraryException.class,
                () -> OrtNativeLibrary.choose(
                        Optional.empty(), java.util.Set.of(ai.onnxruntime.OrtProvider.CUDA), dir));
        assertTrue(
                missing.getMessage().contains("the CUDA runtime (com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0,"),
                missing.getMessage());
        assertTrue(missing.getMessage().contains("run `flux2 runtime install cuda`"), missing.getMessage());
        RuntimeLibraryException both = assertThrows(
                RuntimeLibraryException.class,
                () -> OrtNativeLibrary.choose(
                        Optional.empty(),
                        java.util.Set.of(ai.onnxruntime.OrtProvider.CUDA, ai.onnxruntime.OrtProvider.WEBGPU),
                        dir));
        assertTrue(
                both.getMessage().startsWith("the webgpu and cuda providers need different ONNX Runtime libraries"),
                both.getMessage());
    }

    @Test
    void aNativeFolderOnceOnnxRuntimeRunsIsAConflictNamingBoth() throws IOException {
        SharedEnvironment.get();
        Path folder = Files.createDirectories(dir.resolve("linux-x64-cuda"));
        Path core = Files.write(folder.resolve("libonnxruntime.so"), FakePackage.LIBRARY);
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> OrtNativeLibrary.environment(
                        OrtNativeLibrary.Choice.folder(folder, core, "the installed CUDA runtime")));
        assertTrue(e.getMessage().contains(core + " (chosen by the installed CUDA runtime)"), e.getMessage());
        assertTrue(e.getMessage().contains("already runs on"), e.getMessage());
        assertEquals(null, System.getProperty(CudaRuntime.NATIVE_PATH_PROPERTY), "nothing set for a refused choice");
    }
}
