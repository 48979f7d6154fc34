package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CUDA library search on fake folders this test writes: every library found where the loader looks, each
 * missing one named with the ways to get it, one found where the loader does not look named with the folder to add,
 * CUDA 13's libraries (also behind a link of the CUDA 12 name) refused, the driver's absence said first, and
 * {@code ldconfig -p}'s output read. No GPU, no CUDA.
 */
class CudaLibrariesTest {
    private static final List<String> LINUX = List.of(
            "libcudart.so.12",
            "libcublas.so.12",
            "libcublasLt.so.12",
            "libcufft.so.11",
            "libcurand.so.10",
            "libcudnn.so.9",
            "libcuda.so.1");

    @TempDir
    Path dir;

    private Path folder(String name, String... files) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        for (String f : files) {
            Files.writeString(d.resolve(f), "fake " + f);
        }
        return d;
    }

    private static CudaLibraries.SearchPath linux(Map<Path, String> loader, Map<Path, String> elsewhere) {
        return new CudaLibraries.SearchPath(false, loader, Map.of(), elsewhere);
    }

    private static Optional<String> problem(CudaLibraries.SearchPath path) {
        return CudaLibraries.problem(CudaLibraries.search(path), path);
    }

    @Test
    void allFoundOnTheLoadersPathIsNoProblem() throws IOException {
        Path all = folder("cuda12", LINUX.toArray(String[]::new));
        CudaLibraries.SearchPath path = linux(Map.of(all, "LD_LIBRARY_PATH"), Map.of());
        List<CudaLibraries.Finding> found = CudaLibraries.search(path);
        assertEquals(CudaLibrary.values().length, found.size());
        for (CudaLibraries.Finding f : found) {
            assertEquals(
                    Optional.of(all.resolve(f.library().fileName(false))),
                    f.usable(),
                    f.library().name());
        }
        assertEquals(Optional.empty(), problem(path));
    }

    @Test
    void everyMissingLibraryIsNamedWithTheWaysToGetIt() throws IOException {
        Path empty = folder("empty");
        CudaLibraries.SearchPath path = linux(Map.of(empty, "LD_LIBRARY_PATH"), Map.of());
        String m = problem(path).orElseThrow();
        assertTrue(m.startsWith("the CUDA provider (onnxruntime_gpu 1.26.0) cannot load: no NVIDIA driver found"), m);
        assertTrue(m.contains("7 of its 7 libraries missing"), m);
        for (String lib : LINUX) {
            assertTrue(m.contains(lib + " ("), lib + " named: " + m);
        }
        for (String pip : List.of(
                "pip install nvidia-cuda-runtime-cu12",
                "pip install nvidia-cublas-cu12",
                "pip install nvidia-cufft-cu12",
                "pip install nvidia-curand-cu12",
                "pip install nvidia-cudnn-cu12")) {
            assertTrue(m.contains(pip), pip + ": " + m);
        }
        assertTrue(
                m.contains("libcuda.so.1 (the NVIDIA driver's CUDA library) is not found; get it from the NVIDIA"
                        + " driver (release 525 or newer for CUDA 12)"),
                m);
        assertTrue(m.contains("Looked in LD_LIBRARY_PATH, ldconfig's cache, LD_LIBRARY_PATH"), m);
        assertFalse(m.contains("Failed to load shared library"), m);
    }

    @Test
    void eachSingleMissingLibraryIsTheOnlyOneNamed() throws IOException {
        for (String missing : LINUX) {
            Path d = folder(
                    "without-" + missing,
                    LINUX.stream().filter(l -> !l.equals(missing)).toArray(String[]::new));
            String m = problem(linux(Map.of(d, "LD_LIBRARY_PATH"), Map.of())).orElseThrow();
            assertTrue(m.contains("1 of its 7 libraries missing: " + missing + " ("), m);
            for (String other : LINUX) {
                if (!other.equals(missing)) {
                    assertFalse(m.contains(other + " ("), other + " is there: " + m);
                }
            }
            assertEquals(missing.equals("libcuda.so.1"), m.contains("no NVIDIA driver found"), m);
        }
    }

    @Test
    void aLibraryWhereTheLoaderDoesNotLookIsNamedWithTheFolderToAdd() throws IOException {
        Path system = folder(
                "system",
                "libcudart.so.12",
                "libcublas.so.12",
                "libcublasLt.so.12",
                "libcufft.so.11",
                "libcurand.so.10",
                "libcuda.so.1");
        Path wheel = folder("site-packages/nvidia/cudnn/lib", "libcudnn.so.9");
        Map<Path, String> elsewhere = new LinkedHashMap<>();
        elsewhere.put(folder("cuda-home/lib64"), "CUDA_HOME");
        elsewhere.put(wheel, "pip's nvidia-*-cu12 wheels");
        CudaLibraries.SearchPath path = linux(Map.of(system, "the system library folders"), elsewhere);
        String m = problem(path).orElseThrow();
        assertTrue(
                m.contains("libcudnn.so.9 (cuDNN 9 for CUDA 12) is in " + wheel
                        + " (pip's nvidia-*-cu12 wheels), which the loader does not search"),
                m);
        assertTrue(m.contains("export LD_LIBRARY_PATH=" + wheel + ":$LD_LIBRARY_PATH"), m);
        assertTrue(m.contains("CUDA_HOME, pip's nvidia-*-cu12 wheels"), "where it looked: " + m);
        assertFalse(m.contains("no NVIDIA driver"), m);
    }

    @Test
    void cuda13sLibrariesDoNotServeAndAreNamedAsSuch() throws IOException {
        Path d = folder(
                "cuda13",
                "libcudart.so.12",
                "libcublas.so.13",
                "libcublasLt.so.13",
                "libcufft.so.11",
                "libcurand.so.10",
                "libcudnn.so.9",
                "libcuda.so.1");
        String m = problem(linux(Map.of(d, "LD_LIBRARY_PATH"), Map.of())).orElseThrow();
        assertTrue(
                m.contains("libcublas.so.12 (cuBLAS of CUDA 12) is not found; " + d.resolve("libcublas.so.13")
                        + " is another CUDA version's, which does not serve"),
                m);
        assertTrue(
                m.contains("libcublasLt.so.12 (cuBLASLt of CUDA 12) is not found; " + d.resolve("libcublasLt.so.13")),
                m);
        assertTrue(m.contains("2 of its 7 libraries missing"), m);
    }

    @Test
    void aCuda12NameLinkedToCuda13sFileIsRefused() throws IOException {
        Path d = folder(
                "linked",
                "libcudart.so.12",
                "libcublasLt.so.12",
                "libcufft.so.11",
                "libcurand.so.10",
                "libcudnn.so.9",
                "libcuda.so.1",
                "libcublas.so.13.0.0.19");
        Files.createSymbolicLink(d.resolve("libcublas.so.12"), d.resolve("libcublas.so.13.0.0.19"));
        Path real = folder("real", "libcublas.so.12.4.5.8");
        Files.createSymbolicLink(real.resolve("libcublas.so.12"), real.resolve("libcublas.so.12.4.5.8"));
        String m = problem(linux(Map.of(d, "LD_LIBRARY_PATH"), Map.of())).orElseThrow();
        assertTrue(
                m.contains("libcublas.so.12 (cuBLAS of CUDA 12) is not found; " + d.resolve("libcublas.so.12")
                        + " is another CUDA version's"),
                m);
        Map<Path, String> both = new LinkedHashMap<>();
        both.put(d, "LD_LIBRARY_PATH");
        both.put(real, "LD_LIBRARY_PATH");
        assertEquals(Optional.empty(), problem(linux(both, Map.of())), "a link to a CUDA 12 file serves");
    }

    /**
     * The H200 machine's layout (driver 580): {@code /lib/libcuda.so.1} links to the driver's file named by its
     * release, {@code /usr/local/nvidia/lib64/libcuda.so.580.159.04}, which carries only GLIBC's symbol versions; the
     * check refused it as "another CUDA version's". The versioned-symbol rule is the toolkit's libraries' only.
     */
    @Test
    void theDriversLibraryNamedByItsReleaseServes() throws IOException {
        Path lib = folder(
                "lib",
                "libcudart.so.12",
                "libcublas.so.12",
                "libcublasLt.so.12",
                "libcufft.so.11",
                "libcurand.so.10",
                "libcudnn.so.9");
        Path nvidia = Files.createDirectories(dir.resolve("usr/local/nvidia/lib64"));
        Path driver = Files.write(nvidia.resolve("libcuda.so.580.159.04"), elfWithGlibcVersionsOnly());
        Files.createSymbolicLink(lib.resolve("libcuda.so.1"), driver);
        Files.createSymbolicLink(lib.resolve("libcuda.so"), lib.resolve("libcuda.so.1"));
        CudaLibraries.SearchPath path = linux(Map.of(lib, "the system library folders"), Map.of());
        List<CudaLibraries.Finding> found = CudaLibraries.search(path);
        CudaLibraries.Finding d = found.get(CudaLibrary.DRIVER.ordinal());
        assertEquals(Optional.of(lib.resolve("libcuda.so.1")), d.usable());
        assertEquals(Optional.empty(), d.otherVersion());
        assertEquals(Optional.empty(), problem(path));
        assertFalse(CudaLibraries.describe(found, false).contains("not found"), CudaLibraries.describe(found, false));

        // The toolkit's rule still holds beside it: cuBLAS 12's name linked to CUDA 13's file is refused.
        Files.delete(lib.resolve("libcublas.so.12"));
        Path cuda13 = Files.write(nvidia.resolve("libcublas.so.13.0.0.19"), elfWithGlibcVersionsOnly());
        Files.createSymbolicLink(lib.resolve("libcublas.so.12"), cuda13);
        String m = problem(path).orElseThrow();
        assertTrue(m.contains("1 of its 7 libraries missing: libcublas.so.12 (cuBLAS of CUDA 12) is not found"), m);
        assertFalse(m.contains("libcuda.so"), m);
    }

    /** With the driver's library absent, a development link {@code libcuda.so} is not "another version". */
    @Test
    void noDriverIsSaidAsSuchAndLibcudaSoIsNoOtherVersion() throws IOException {
        Path lib = folder(
                "nodriver",
                "libcudart.so.12",
                "libcublas.so.12",
                "libcublasLt.so.12",
                "libcufft.so.11",
                "libcurand.so.10",
                "libcudnn.so.9",
                "libcuda.so");
        CudaLibraries.SearchPath path = linux(Map.of(lib, "LD_LIBRARY_PATH"), Map.of());
        String m = problem(path).orElseThrow();
        assertTrue(m.contains("no NVIDIA driver found"), m);
        assertTrue(m.contains("libcuda.so.1 (the NVIDIA driver's CUDA library) is not found; get it from"), m);
        assertFalse(m.contains("another CUDA version"), m);
        assertEquals(
                "libcudart.so.12 " + lib.resolve("libcudart.so.12") + ", libcublas.so.12 "
                        + lib.resolve("libcublas.so.12")
                        + ", libcublasLt.so.12 " + lib.resolve("libcublasLt.so.12") + ", libcufft.so.11 "
                        + lib.resolve("libcufft.so.11") + ", libcurand.so.10 " + lib.resolve("libcurand.so.10")
                        + ", libcudnn.so.9 " + lib.resolve("libcudnn.so.9")
                        + "; not found by this search: libcuda.so.1",
                CudaLibraries.describe(CudaLibraries.search(path), false));
    }

    /**
     * A minimal 64-bit little-endian ELF shared object's header (ET_DYN, x86-64) with a {@code .gnu.version_r}-like
     * payload naming GLIBC only, as the driver's library is: the check must not need more than its name and link.
     */
    private static byte[] elfWithGlibcVersionsOnly() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(64 + 32).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}).put(new byte[8]);
        b.putShort((short) 3)
                .putShort((short) 62)
                .putInt(1)
                .putLong(0)
                .putLong(0)
                .putLong(0)
                .putInt(0);
        b.putShort((short) 64)
                .putShort((short) 56)
                .putShort((short) 0)
                .putShort((short) 64)
                .putShort((short) 0);
        b.putShort((short) 0);
        b.put("GLIBC_2.2.5\0GLIBC_2.3\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return b.array();
    }

    @Test
    void ldconfigsCacheCountsAsTheLoadersPath() throws IOException {
        Path cache = folder("cached", LINUX.toArray(String[]::new));
        StringBuilder out = new StringBuilder("7 libs found in cache `/etc/ld.so.cache'\n");
        for (String l : LINUX) {
            out.append('\t')
                    .append(l)
                    .append(" (libc6) => /nonexistent32/")
                    .append(l)
                    .append('\n');
            out.append('\t')
                    .append(l)
                    .append(" (libc6,x86-64) => ")
                    .append(cache.resolve(l))
                    .append('\n');
            out.append('\t')
                    .append(l)
                    .append(" (libc6,AArch64) => /nonexistent-arm/")
                    .append(l)
                    .append('\n');
        }
        Map<String, Path> parsed = CudaLibraries.parseLdconfig(out.toString());
        assertEquals(cache.resolve("libcudnn.so.9"), parsed.get("libcudnn.so.9"), "the x86-64 entry wins");
        CudaLibraries.SearchPath path =
                new CudaLibraries.SearchPath(false, Map.of(folder("none"), "LD_LIBRARY_PATH"), parsed, Map.of());
        assertEquals(Optional.empty(), problem(path));
    }

    @Test
    void windowsNamesAndPath() throws IOException {
        Path bin = folder(
                "CUDA/v12.4/bin",
                "cudart64_12.dll",
                "cublas64_12.dll",
                "cublasLt64_12.dll",
                "cufft64_11.dll",
                "curand64_10.dll");
        Path system32 = folder("System32", "nvcuda.dll");
        Map<Path, String> loader = new LinkedHashMap<>();
        loader.put(bin, "PATH");
        loader.put(system32, "PATH");
        CudaLibraries.SearchPath path = new CudaLibraries.SearchPath(true, loader, Map.of(), Map.of());
        String m = problem(path).orElseThrow();
        assertTrue(m.contains("1 of its 7 libraries missing: cudnn64_9.dll (cuDNN 9 for CUDA 12)"), m);
        assertTrue(m.contains("Looked in PATH, PATH"), m);
    }

    @Test
    void theSystemSearchPathStartsWithLdLibraryPathAndKnowsTheUsualPlaces() {
        CudaLibraries.SearchPath path = CudaLibraries.systemPath();
        assertFalse(path.windows());
        assertTrue(path.loaderPath().containsKey(Path.of("/usr/lib/x86_64-linux-gnu")), path.toString());
        assertTrue(path.elsewhere().containsKey(Path.of("/usr/local/cuda/lib64")), path.toString());
    }
}
