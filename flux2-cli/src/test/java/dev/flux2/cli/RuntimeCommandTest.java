package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flux2 runtime}: the failures a user meets without the real package (which the tests never fetch), each one
 * line and exit code 5; usage errors exit 2.
 */
class RuntimeCommandTest {
    @TempDir
    Path tmp;

    @Test
    void aMissingRuntimeExits5AndSaysHowToInstallIt() {
        CliHarness.Run run = CliHarness.run(
                "runtime", "path", "webgpu", "--home", tmp.resolve("home").toString());
        assertEquals(ExitCodes.RUNTIME, run.exitCode(), run.toString());
        assertTrue(run.err().startsWith("flux2: runtime error: "), run.err());
        assertTrue(run.err().contains("flux2 runtime install webgpu"), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
    }

    @Test
    void aFolderWithoutTheLibraryOrAWrongLibraryExits5AndInstallsNothing() throws IOException {
        Path home = tmp.resolve("home");
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        CliHarness.Run none =
                CliHarness.run("runtime", "install", "webgpu", "--from", empty.toString(), "--home", home.toString());
        assertEquals(ExitCodes.RUNTIME, none.exitCode(), none.toString());
        assertTrue(none.err().contains("holds no"), none.err());
        Path fake = Files.createDirectories(tmp.resolve("fake"));
        Files.writeString(fake.resolve("libonnxruntime.so.1"), "not the pinned library");
        Files.writeString(fake.resolve("onnxruntime.dll"), "not the pinned library");
        Files.writeString(fake.resolve("libonnxruntime.1.dylib"), "not the pinned library");
        for (String dll : new String[] {"dxcompiler.dll", "dxil.dll", "DirectML.dll"}) {
            Files.writeString(fake.resolve(dll), "not the pinned library");
        }
        CliHarness.Run wrong =
                CliHarness.run("runtime", "install", "webgpu", "--from", fake.toString(), "--home", home.toString());
        assertEquals(ExitCodes.RUNTIME, wrong.exitCode(), wrong.toString());
        assertTrue(wrong.err().contains("sha512"), wrong.err());
        assertFalse(Files.exists(home.resolve("runtime/1.26.0")) && hasRuntime(home), "nothing installed");
    }

    private static boolean hasRuntime(Path home) throws IOException {
        try (var s = Files.list(home.resolve("runtime/1.26.0"))) {
            return s.anyMatch(p -> !p.getFileName().toString().startsWith("."));
        }
    }

    @Test
    void anUnknownRuntimeIsAUsageError() {
        CliHarness.Run run = CliHarness.run("runtime", "install", "rocm", "--home", tmp.toString());
        assertEquals(ExitCodes.USAGE, run.exitCode(), run.toString());
        assertTrue(run.err().contains("known: webgpu, cuda"), run.err());
    }

    @Test
    void aMissingCudaRuntimeExits5AndSaysHowToGetIt() {
        CliHarness.Run run = CliHarness.run(
                "runtime", "path", "cuda", "--home", tmp.resolve("home").toString());
        assertEquals(ExitCodes.RUNTIME, run.exitCode(), run.toString());
        assertTrue(run.err().contains("flux2 runtime install cuda"), run.err());
        assertTrue(run.err().contains("onnxruntime_gpu"), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
    }

    @Test
    void aCudaFolderOfAnotherBuildExits5AndInstallsNothing() throws IOException {
        Path home = tmp.resolve("home");
        Path fake = Files.createDirectories(tmp.resolve("natives"));
        for (String f : new String[] {
            "libonnxruntime.so",
            "libonnxruntime4j_jni.so",
            "libonnxruntime_providers_shared.so",
            "libonnxruntime_providers_cuda.so"
        }) {
            Files.writeString(fake.resolve(f), "not the pinned library");
        }
        CliHarness.Run run =
                CliHarness.run("runtime", "install", "cuda", "--from", fake.toString(), "--home", home.toString());
        assertEquals(ExitCodes.RUNTIME, run.exitCode(), run.toString());
        assertTrue(run.err().contains("libonnxruntime.so has 22 bytes, expected 26370104"), run.err());
        assertFalse(Files.exists(home.resolve("runtime/1.26.0/linux-x64-cuda")), "nothing installed");
    }
}
