package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Installing and locating the CUDA runtime on a miniature {@code onnxruntime_gpu} jar ({@link FakeGpuJar}): atomic
 * install from a jar, a folder or Maven, verified against the pin; corrupt, other-build and oversized files refused
 * with messages naming the file and the expected and found values; extraction bounded (a zip bomb stops at the pinned
 * size); the class path's GPU natives found. No network, no native loading.
 */
class CudaRuntimeInstallTest {
    private static final CudaRuntime.MavenFetch NO_MAVEN = (pin, folder) -> {
        throw new AssertionError("Maven must not run when --from is given");
    };

    @TempDir
    Path dir;

    private RuntimeInstallation install(Path home, Optional<Path> from) {
        return CudaRuntime.install(home, from, FakeGpuJar.pin("unused"), OrtPlatform.LINUX_X64, NO_MAVEN);
    }

    @Test
    void installsTheWholeNativeFolderFromAJarAtomicallyAndOnlyOnce() throws IOException {
        Path jar = FakeGpuJar.jar(dir.resolve("onnxruntime_gpu-1.26.0.jar"));
        Path home = dir.resolve("home");
        RuntimeInstallation first = install(home, Optional.of(jar));
        assertTrue(first.installedNow());
        assertEquals(home.resolve("runtime/1.26.0/linux-x64-cuda"), first.folder());
        assertEquals(first.folder().resolve("libonnxruntime.so"), first.library());
        assertEquals("linux-x64-cuda", first.platform());
        for (Map.Entry<String, byte[]> f : FakeGpuJar.FILES.entrySet()) {
            assertArrayEquals(f.getValue(), Files.readAllBytes(first.folder().resolve(f.getKey())), f.getKey());
        }
        assertFalse(Files.exists(first.folder().resolve("libonnxruntime_providers_tensorrt.so")));
        assertFalse(Files.exists(first.folder().resolve("onnxruntime.dll")));
        assertTrue(Files.readString(first.folder().resolve(WebGpuRuntime.RECORD_FILE))
                .contains("com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0"));
        try (Stream<Path> s = Files.list(first.folder().getParent())) {
            assertEquals(1, s.count(), "no staging folder left beside the runtime");
        }
        RuntimeInstallation second = install(home, Optional.of(jar));
        assertFalse(second.installedNow());
        assertEquals(first.folder(), CudaRuntime.locate(home, FakeGpuJar.pin("unused"), OrtPlatform.LINUX_X64));
    }

    @Test
    void installsFromTheJarsNativeFolderOrAnUnpackedJar() throws IOException {
        Path unpacked = FakeGpuJar.unpacked(dir.resolve("unpacked"), FakeGpuJar.FILES);
        assertTrue(install(dir.resolve("h1"), Optional.of(unpacked)).installedNow());
        Path nativeFolder = unpacked.resolve(FakeGpuJar.FOLDER);
        RuntimeInstallation flat = install(dir.resolve("h2"), Optional.of(nativeFolder));
        assertArrayEquals(
                FakeGpuJar.FILES.get("libonnxruntime_providers_cuda.so"),
                Files.readAllBytes(flat.folder().resolve("libonnxruntime_providers_cuda.so")));
    }

    @Test
    void aFolderMissingAFileOrHoldingAnotherBuildInstallsNothing() throws IOException {
        Map<String, byte[]> noJni = new LinkedHashMap<>(FakeGpuJar.FILES);
        noJni.remove("libonnxruntime4j_jni.so");
        Path partial = FakeGpuJar.unpacked(dir.resolve("partial"), noJni);
        RuntimeLibraryException missing =
                assertThrows(RuntimeLibraryException.class, () -> install(dir.resolve("home"), Optional.of(partial)));
        assertTrue(missing.getMessage().contains("holds no libonnxruntime4j_jni.so"), missing.getMessage());

        Map<String, byte[]> cpuJni = new LinkedHashMap<>(FakeGpuJar.FILES);
        cpuJni.put("libonnxruntime4j_jni.so", FakeGpuJar.bytes("\u007fELF the CPU jar's JNI glue, no CUDA"));
        Path other = FakeGpuJar.unpacked(dir.resolve("other"), cpuJni);
        RuntimeLibraryException wrong =
                assertThrows(RuntimeLibraryException.class, () -> install(dir.resolve("home"), Optional.of(other)));
        assertTrue(wrong.getMessage().contains("libonnxruntime4j_jni.so has "), wrong.getMessage());
        assertTrue(
                wrong.getMessage().contains("expected " + FakeGpuJar.FILES.get("libonnxruntime4j_jni.so").length),
                wrong.getMessage());
        assertFalse(Files.exists(dir.resolve("home/runtime/1.26.0/linux-x64-cuda")), "nothing half-installed");
    }

    @Test
    void theCpuJarIsRefusedNamingWhatItLacks() throws IOException {
        Map<String, byte[]> cpu = new LinkedHashMap<>();
        cpu.put(FakeGpuJar.FOLDER + "libonnxruntime.so", FakeGpuJar.FILES.get("libonnxruntime.so"));
        cpu.put(FakeGpuJar.FOLDER + "libonnxruntime4j_jni.so", FakeGpuJar.FILES.get("libonnxruntime4j_jni.so"));
        Path jar = FakeGpuJar.jar(dir.resolve("onnxruntime-1.26.0.jar"), cpu);
        RuntimeLibraryException e =
                assertThrows(RuntimeLibraryException.class, () -> install(dir.resolve("home"), Optional.of(jar)));
        assertTrue(e.getMessage().contains("libonnxruntime_providers_cuda.so"), e.getMessage());
        assertTrue(e.getMessage().contains("onnxruntime_gpu jar?"), e.getMessage());
    }

    @Test
    void anEntryDeclaringMoreThanItsPinnedSizeIsNotInflated() throws IOException {
        Map<String, byte[]> bomb = new LinkedHashMap<>();
        FakeGpuJar.FILES.forEach((n, b) -> bomb.put(FakeGpuJar.FOLDER + n, b));
        // 64 MiB of zeros deflate to about 64 KiB: a small zip bomb where a 40-byte library is pinned.
        bomb.put(FakeGpuJar.FOLDER + "libonnxruntime_providers_cuda.so", new byte[64 << 20]);
        Path jar = FakeGpuJar.jar(dir.resolve("bomb.jar"), bomb);
        assertTrue(Files.size(jar) < 1 << 20, "the jar is small");
        RuntimeLibraryException e =
                assertThrows(RuntimeLibraryException.class, () -> install(dir.resolve("home"), Optional.of(jar)));
        assertTrue(e.getMessage().contains("declares " + (64 << 20) + " bytes"), e.getMessage());
        assertTrue(
                e.getMessage()
                        .contains("more than the " + FakeGpuJar.FILES.get("libonnxruntime_providers_cuda.so").length
                                + " allowed"),
                e.getMessage());
    }

    @Test
    void anEntryInflatingPastWhatItDeclaresStopsAtItsLimit() throws IOException {
        Map<String, byte[]> bomb = new LinkedHashMap<>();
        FakeGpuJar.FILES.forEach((n, b) -> bomb.put(FakeGpuJar.FOLDER + n, b));
        String cuda = FakeGpuJar.FOLDER + "libonnxruntime_providers_cuda.so";
        bomb.put(cuda, new byte[16 << 20]);
        Path jar = FakeGpuJar.jar(dir.resolve("liar.jar"), bomb);
        int pinned = FakeGpuJar.FILES.get("libonnxruntime_providers_cuda.so").length;
        FakeGpuJar.declareSize(jar, cuda, pinned);
        try (ZipFile z = new ZipFile(jar.toFile())) {
            assertEquals(pinned, z.getEntry(cuda).getSize(), "the central directory now declares the pinned size");
        }
        RuntimeLibraryException e =
                assertThrows(RuntimeLibraryException.class, () -> install(dir.resolve("home"), Optional.of(jar)));
        assertTrue(e.getMessage().contains("inflates to more than " + pinned + " bytes"), e.getMessage());
        try (Stream<Path> s = Files.walk(dir.resolve("home"))) {
            assertEquals(0, s.filter(Files::isRegularFile).count(), "the staging folder and what it held are removed");
        }
    }

    @Test
    void mavenIsAskedWithoutFromAndItsJarMustHaveThePinnedSha512() throws IOException {
        Path made = FakeGpuJar.jar(dir.resolve("made.jar"));
        String[] asked = new String[1];
        CudaRuntime.MavenFetch maven = (pin, folder) -> {
            asked[0] = pin.coordinates();
            return Files.copy(made, folder.resolve("onnxruntime_gpu-1.26.0.jar"));
        };
        CudaRuntimePin good = FakeGpuJar.pin(sha512(made));
        RuntimeInstallation inst =
                CudaRuntime.install(dir.resolve("h1"), Optional.empty(), good, OrtPlatform.LINUX_X64, maven);
        assertEquals("com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0", asked[0]);
        assertTrue(inst.source().startsWith("Maven artifact com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0"));
        CudaRuntimePin other = FakeGpuJar.pin("00".repeat(64));
        RuntimeLibraryException e = assertThrows(
                RuntimeLibraryException.class,
                () -> CudaRuntime.install(dir.resolve("h2"), Optional.empty(), other, OrtPlatform.LINUX_X64, maven));
        assertTrue(e.getMessage().contains("has sha512 " + sha512(made).substring(0, 24)), e.getMessage());
        assertTrue(e.getMessage().contains("expected 000000"), e.getMessage());
    }

    @Test
    void aMissingRuntimeSaysHowToGetOne() throws IOException {
        Path home = dir.resolve("home");
        CudaRuntimePin pin = FakeGpuJar.pin("x");
        RuntimeLibraryException missing =
                assertThrows(RuntimeLibraryException.class, () -> CudaRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(missing.getMessage().contains("flux2 runtime install cuda"), missing.getMessage());
        assertTrue(missing.getMessage().contains("depend on com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0"));
        Files.createDirectories(home.resolve("runtime/1.25.0/linux-x64-cuda"));
        RuntimeLibraryException other =
                assertThrows(RuntimeLibraryException.class, () -> CudaRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(other.getMessage().contains("installed: ONNX Runtime 1.25.0"), other.getMessage());
    }

    @Test
    void aFileDamagedAfterTheInstallIsFoundBeforeLoadingAndTheInstallRepairsIt() throws IOException {
        Path jar = FakeGpuJar.jar(dir.resolve("g.jar"));
        Path home = dir.resolve("home");
        RuntimeInstallation inst = install(home, Optional.of(jar));
        Path cuda = inst.folder().resolve("libonnxruntime_providers_cuda.so");
        byte[] damaged =
                FakeGpuJar.FILES.get("libonnxruntime_providers_cuda.so").clone();
        damaged[7] ^= 1;
        Files.write(cuda, damaged);
        CudaRuntimePin pin = FakeGpuJar.pin("unused");
        RuntimeLibraryException e =
                assertThrows(RuntimeLibraryException.class, () -> CudaRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(e.getMessage().contains(cuda + " has sha512"), e.getMessage());
        assertTrue(e.getMessage().contains("flux2 runtime install cuda"), e.getMessage());
        Files.delete(inst.folder().resolve("libonnxruntime.so"));
        RuntimeLibraryException gone =
                assertThrows(RuntimeLibraryException.class, () -> CudaRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
        assertTrue(gone.getMessage().contains("libonnxruntime.so is missing"), gone.getMessage());
        assertTrue(install(home, Optional.of(jar)).installedNow(), "installing again repairs it");
        assertEquals(inst.folder(), CudaRuntime.locate(home, pin, OrtPlatform.LINUX_X64));
    }

    @Test
    void theClassPathsGpuNativesAreFoundInAJarOrAFolder() throws IOException {
        CudaRuntimePin.Natives natives = FakeGpuJar.pin("x").nativesFor(OrtPlatform.LINUX_X64);
        Path jar = FakeGpuJar.jar(dir.resolve("onnxruntime_gpu-1.26.0.jar"));
        try (URLClassLoader loader = loader(jar)) {
            Optional<String> found = CudaRuntime.classpathNatives(loader, natives);
            assertEquals(Optional.of(jar.toUri().toURL().toString()), found);
        }
        Path folder = FakeGpuJar.unpacked(dir.resolve("classes"), FakeGpuJar.FILES);
        try (URLClassLoader loader = loader(folder)) {
            assertTrue(CudaRuntime.classpathNatives(loader, natives).isPresent());
        }
        Path cpu = FakeGpuJar.jar(
                dir.resolve("onnxruntime-1.26.0.jar"),
                Map.of(FakeGpuJar.FOLDER + "libonnxruntime.so", FakeGpuJar.bytes("cpu")));
        try (URLClassLoader loader = loader(cpu)) {
            assertEquals(Optional.empty(), CudaRuntime.classpathNatives(loader, natives), "the CPU jar alone");
        }
    }

    @Test
    void bothOnnxRuntimeJarsOnTheClassPathAreAConflictNamingBoth() throws IOException {
        CudaRuntimePin.Natives natives = FakeGpuJar.pin("x").nativesFor(OrtPlatform.LINUX_X64);
        Path cpu = FakeGpuJar.jar(
                dir.resolve("onnxruntime-1.26.0.jar"),
                Map.of(
                        FakeGpuJar.FOLDER + "libonnxruntime.so", FakeGpuJar.bytes("cpu"),
                        FakeGpuJar.FOLDER + "libonnxruntime4j_jni.so", FakeGpuJar.bytes("cpu jni")));
        Path gpu = FakeGpuJar.jar(dir.resolve("onnxruntime_gpu-1.26.0.jar"));
        try (URLClassLoader loader = loader(cpu, gpu)) {
            RuntimeLibraryException e =
                    assertThrows(RuntimeLibraryException.class, () -> CudaRuntime.classpathNatives(loader, natives));
            assertTrue(e.getMessage().contains("onnxruntime-1.26.0.jar"), e.getMessage());
            assertTrue(e.getMessage().contains("onnxruntime_gpu-1.26.0.jar"), e.getMessage());
            assertTrue(e.getMessage().contains("exclude com.microsoft.onnxruntime:onnxruntime"), e.getMessage());
        }
        try (URLClassLoader loader = loader(gpu, cpu)) {
            assertTrue(CudaRuntime.classpathNatives(loader, natives).isPresent(), "the GPU jar first serves");
        }
    }

    @Test
    void theBindingsPinMatchesTheRealOnnxruntimeGpuJarWhenItIsInTheLocalRepository() throws Exception {
        CudaRuntimePin pin = CudaRuntimePin.forBinding();
        assertEquals(RuntimePin.BINDING_VERSION, pin.ortVersion());
        Path jar = Path.of(System.getProperty("user.home"), ".m2/repository/com/microsoft/onnxruntime/onnxruntime_gpu")
                .resolve(pin.ortVersion())
                .resolve("onnxruntime_gpu-" + pin.ortVersion() + ".jar");
        assumeTrue(Files.isRegularFile(jar), "the onnxruntime_gpu jar is not in the local Maven repository");
        assertEquals(pin.jarSha512(), sha512(jar));
        try (ZipFile z = new ZipFile(jar.toFile())) {
            for (CudaRuntimePin.Natives n : pin.natives().values()) {
                for (CudaRuntimePin.PinnedFile f : n.files()) {
                    ZipEntry e = z.getEntry(n.entry(f.name()));
                    assertEquals(f.size(), e.getSize(), f.name());
                    MessageDigest md = MessageDigest.getInstance("SHA-512");
                    try (InputStream in = z.getInputStream(e)) {
                        byte[] buf = new byte[1 << 16];
                        int r;
                        while ((r = in.read(buf)) > 0) {
                            md.update(buf, 0, r);
                        }
                    }
                    assertEquals(f.sha512(), HexFormat.of().formatHex(md.digest()), n.jarFolder() + "/" + f.name());
                }
            }
        }
    }

    private static URLClassLoader loader(Path... entries) throws IOException {
        URL[] urls = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            urls[i] = entries[i].toUri().toURL();
        }
        return new URLClassLoader(urls, null);
    }

    private static String sha512(Path file) throws IOException {
        return FakePackage.sha512Hex(Files.readAllBytes(file));
    }
}
