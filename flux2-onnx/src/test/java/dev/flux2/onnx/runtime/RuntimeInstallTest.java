package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtEnvironment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installing and locating the WebGPU runtime on a miniature package ({@link FakePackage}): atomic install from a
 * tarball, a folder or npm, verified against the pin; missing, corrupt and other-version runtimes refused with
 * messages naming the file and the expected and found values. No network, no native loading.
 */
class RuntimeInstallTest {
    private static final WebGpuRuntime.NpmPack NO_NPM = (spec, folder) -> {
        throw new AssertionError("npm must not run when --from is given");
    };

    @TempDir
    Path dir;

    private RuntimeInstallation install(Path home, Optional<Path> from, RuntimePin pin) {
        return WebGpuRuntime.install(home, from, pin, OrtPlatform.LINUX_X64, NO_NPM);
    }

    @Test
    void installsFromTarballAtomicallyAndOnlyOnce() throws IOException {
        Path tgz = FakePackage.tarball(dir.resolve("p.tgz"), "1.26.0", FakePackage.LIBRARY);
        RuntimePin pin = FakePackage.pin("sha512-unused");
        Path home = dir.resolve("home");
        RuntimeInstallation first = install(home, Optional.of(tgz), pin);
        assertTrue(first.installedNow());
        assertEquals(home.resolve("runtime/1.26.0/linux-x64/libonnxruntime.so.1"), first.library());
        assertArrayEquals(FakePackage.LIBRARY, Files.readAllBytes(first.library()));
        assertTrue(Files.readString(first.folder().resolve(WebGpuRuntime.RECORD_FILE))
                .contains("\"1.26.0\""));
        try (Stream<Path> s = Files.list(first.folder().getParent())) {
            assertEquals(1, s.count(), "no staging folder left beside the runtime");
        }
        RuntimeInstallation second = install(home, Optional.of(tgz), pin);
        assertFalse(second.installedNow());
        assertEquals(first.library(), WebGpuRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
    }

    @Test
    void installsFromAnUnpackedFolderOrTheLibraryItself() throws IOException {
        RuntimePin pin = FakePackage.pin("sha512-unused");
        Path pkg = dir.resolve("pkg/package/bin/napi-v6/linux/x64");
        Files.createDirectories(pkg);
        Files.write(pkg.resolve("libonnxruntime.so.1"), FakePackage.LIBRARY);
        Files.writeString(
                dir.resolve("pkg/package/package.json"), "{\"name\":\"onnxruntime-node\",\"version\":\"1.26.0\"}");
        assertTrue(
                install(dir.resolve("h1"), Optional.of(dir.resolve("pkg")), pin).installedNow());
        Path flat = Files.createDirectories(dir.resolve("flat"));
        Files.write(flat.resolve("libonnxruntime.so.1"), FakePackage.LIBRARY);
        RuntimeInstallation fromFlat = install(dir.resolve("h2"), Optional.of(flat), pin);
        assertArrayEquals(FakePackage.LIBRARY, Files.readAllBytes(fromFlat.library()));
    }

    @Test
    void aTarballOfAnotherVersionIsRefusedNamingBothVersions() throws IOException {
        Path tgz = FakePackage.tarball(dir.resolve("old.tgz"), "1.25.0", FakePackage.LIBRARY);
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> install(dir.resolve("home"), Optional.of(tgz), FakePackage.pin("x")));
        assertTrue(e.getMessage().contains("onnxruntime-node 1.25.0"), e.getMessage());
        assertTrue(e.getMessage().contains("expected onnxruntime-node 1.26.0"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("home/runtime/1.26.0/linux-x64")));
    }

    @Test
    void aLibraryThatDoesNotMatchThePinIsNotInstalled() throws IOException {
        Path tgz = FakePackage.tarball(dir.resolve("p.tgz"), "1.26.0", FakePackage.bytes("altered library"));
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> install(dir.resolve("home"), Optional.of(tgz), FakePackage.pin("x")));
        assertTrue(e.getMessage().contains("libonnxruntime.so.1 has sha512 "), e.getMessage());
        assertTrue(e.getMessage()
                .contains(
                        "expected " + FakePackage.sha512Hex(FakePackage.LIBRARY).substring(0, 24)));
        assertFalse(Files.exists(dir.resolve("home/runtime/1.26.0/linux-x64")), "nothing half-installed");
    }

    @Test
    void notATarballIsAClearError() throws IOException {
        Path junk = Files.writeString(dir.resolve("page.tgz"), "<html>not found</html>");
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> install(dir.resolve("home"), Optional.of(junk), FakePackage.pin("x")));
        assertTrue(e.getMessage().contains("page.tgz"), e.getMessage());
    }

    @Test
    void npmIsUsedWithoutFromAndItsTarballMustHaveThePinnedIntegrity() throws IOException {
        Path made = FakePackage.tarball(dir.resolve("src.tgz"), "1.26.0", FakePackage.LIBRARY);
        String[] asked = new String[1];
        WebGpuRuntime.NpmPack npm = (spec, folder) -> {
            asked[0] = spec;
            return Files.copy(made, folder.resolve("onnxruntime-node-1.26.0.tgz"));
        };
        RuntimePin good = FakePackage.pin(FakePackage.integrity(made));
        RuntimeInstallation inst =
                WebGpuRuntime.install(dir.resolve("h1"), Optional.empty(), good, OrtPlatform.LINUX_X64, npm);
        assertEquals("onnxruntime-node@1.26.0", asked[0]);
        assertTrue(inst.source().contains("npm package onnxruntime-node@1.26.0"));
        RuntimePin other = FakePackage.pin("sha512-AAAA");
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> WebGpuRuntime.install(dir.resolve("h2"), Optional.empty(), other, OrtPlatform.LINUX_X64, npm));
        assertTrue(e.getMessage().contains("integrity"), e.getMessage());
    }

    @Test
    void aMissingRuntimeSaysHowToInstallItAndNamesOtherVersions() throws IOException {
        Path home = dir.resolve("home");
        RuntimePin pin = FakePackage.pin("x");
        RuntimeLibraryException missing = assertThrows(
                RuntimeLibraryException.class, () -> WebGpuRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(missing.getMessage().contains("flux2 runtime install webgpu"), missing.getMessage());
        Files.createDirectories(home.resolve("runtime/1.25.0/linux-x64"));
        RuntimeLibraryException other = assertThrows(
                RuntimeLibraryException.class, () -> WebGpuRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(other.getMessage().contains("installed: ONNX Runtime 1.25.0"), other.getMessage());
    }

    @Test
    void aRuntimeCorruptedAfterItsInstallIsRefusedBeforeLoading() throws IOException {
        Path tgz = FakePackage.tarball(dir.resolve("p.tgz"), "1.26.0", FakePackage.LIBRARY);
        RuntimePin pin = FakePackage.pin("x");
        Path home = dir.resolve("home");
        RuntimeInstallation inst = install(home, Optional.of(tgz), pin);
        Files.writeString(inst.library(), "truncated", StandardCharsets.UTF_8);
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class, () -> WebGpuRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
        assertTrue(e.getMessage().contains(inst.library().toString()), e.getMessage());
        // Installing again repairs it.
        assertTrue(install(home, Optional.of(tgz), pin).installedNow());
        assertArrayEquals(FakePackage.LIBRARY, Files.readAllBytes(inst.library()));
    }

    @Test
    void thePinnedVersionIsTheJavaBindingsVersion() {
        assertEquals(OrtEnvironment.class.getPackage().getImplementationVersion(), RuntimePin.BINDING_VERSION);
        assertTrue(RuntimePin.of(RuntimePin.BINDING_VERSION).isPresent());
        for (OrtPlatform p : OrtPlatform.values()) {
            assertEquals(
                    128,
                    RuntimePin.forBinding().filesFor(p).get(p.libraryFile()).length(),
                    p.key());
        }
    }

    @Test
    void platformsWithAWebGpuBuild() {
        assertEquals(Optional.of(OrtPlatform.LINUX_X64), OrtPlatform.of("Linux", "amd64"));
        assertEquals(Optional.of(OrtPlatform.MACOS_ARM64), OrtPlatform.of("Mac OS X", "aarch64"));
        assertEquals(Optional.of(OrtPlatform.WINDOWS_X64), OrtPlatform.of("Windows 11", "amd64"));
        assertEquals(Optional.of(OrtPlatform.WINDOWS_ARM64), OrtPlatform.of("Windows 11", "aarch64"));
        // onnxruntime-node's linux-arm64 library has no WebGPU provider.
        assertEquals(Optional.empty(), OrtPlatform.of("Linux", "aarch64"));
        assertEquals(Optional.empty(), OrtPlatform.of("Mac OS X", "x86_64"));
    }
}
