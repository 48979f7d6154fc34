package dev.flux2.onnx.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33, hostile runtime tarballs for {@code flux2 runtime install webgpu --from}: a library that inflates to a
 * gigabyte filled the disk before the sha512 check; an inflating {@code package.json} was an OutOfMemoryError
 * (exit 1, not 5); a malformed one named Jackson's classes; {@code --from /dev/zero} said "no such file".
 */
class HostileRuntimeTarballTest {
    private static final String LIBRARY_ENTRY = "package/bin/napi-v6/linux/x64/libonnxruntime.so.1";
    private static final WebGpuRuntime.NpmPack NO_NPM = (spec, folder) -> {
        throw new AssertionError("npm must not run when --from is given");
    };

    @TempDir
    Path dir;

    private RuntimeLibraryException refused(Path from) {
        return assertThrows(
                RuntimeLibraryException.class,
                () -> WebGpuRuntime.install(
                        dir.resolve("home"), Optional.of(from), FakePackage.pin("x"), OrtPlatform.LINUX_X64, NO_NPM));
    }

    private static byte[] packageJson(String version) {
        return ("{\"name\": \"onnxruntime-node\", \"version\": \"" + version + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    private void assertNothingInstalled() throws IOException {
        Path home = dir.resolve("home");
        if (Files.exists(home)) {
            try (Stream<Path> files = Files.walk(home)) {
                assertEquals(List.of(), files.filter(Files::isRegularFile).toList(), "files left in the home");
            }
        }
    }

    @Test
    void aLibraryDeclaringMoreThanItsLimitIsRefusedFromItsHeader() throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("package/package.json", packageJson("1.26.0"));
        entries.put(LIBRARY_ENTRY, new byte[4096]); // the rest would inflate from a few bytes of gzip
        Path tgz = FakePackage.tarball(dir.resolve("bomb.tgz"), entries, Map.of(LIBRARY_ENTRY, 1L << 30));

        RuntimeLibraryException e = refused(tgz);

        assertTrue(
                e.getMessage()
                        .contains(LIBRARY_ENTRY + " is 1073741824 bytes, more than the "
                                + WebGpuRuntime.MAX_LIBRARY_BYTES + " bytes allowed for it"),
                e.getMessage());
        assertNothingInstalled();
    }

    @Test
    void anEntryOverItsLimitIsNeverWritten() throws IOException {
        Map<String, byte[]> entries = Map.of("package/big.bin", new byte[3 << 20]);
        Path tgz = FakePackage.tarball(dir.resolve("big.tgz"), entries, Map.of());
        Path target = dir.resolve("big.bin");

        IOException e = assertThrows(
                IOException.class, () -> TarGz.extract(tgz, Map.of("package/big.bin", target), name -> 1L << 20));

        assertTrue(e.getMessage().contains("is 3145728 bytes, more than the 1048576 bytes allowed"), e.getMessage());
        assertFalse(Files.exists(target), "no byte of it written");
    }

    @Test
    void anInflatingPackageJsonIsARuntimeErrorNotAnOutOfMemoryError() throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("package/package.json", " ".repeat(2 << 20).getBytes(StandardCharsets.US_ASCII));
        entries.put(LIBRARY_ENTRY, FakePackage.LIBRARY);
        Path tgz = FakePackage.tarball(dir.resolve("json-bomb.tgz"), entries, Map.of());

        RuntimeLibraryException e = refused(tgz);

        assertTrue(
                e.getMessage().contains("package/package.json is 2097152 bytes, more than the 1048576 bytes allowed"),
                e.getMessage());
        assertNothingInstalled();
    }

    @Test
    void aMalformedPackageJsonIsDescribedInWordsWithoutJacksonsClasses() throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("package/package.json", "{\"name\": \"onnxruntime-node\", \"version\": ".getBytes());
        entries.put(LIBRARY_ENTRY, FakePackage.LIBRARY);
        Path tgz = FakePackage.tarball(dir.resolve("broken-json.tgz"), entries, Map.of());

        RuntimeLibraryException e = refused(tgz);

        assertTrue(e.getMessage().contains("its package.json is not valid JSON"), e.getMessage());
        assertTrue(e.getMessage().contains("at line 1, column "), e.getMessage());
        assertFalse(e.getMessage().contains("com.fasterxml") || e.getMessage().contains("Exception"), e.getMessage());

        entries.put("package/package.json", "[1, 2]".getBytes());
        RuntimeLibraryException array = refused(FakePackage.tarball(dir.resolve("array.tgz"), entries, Map.of()));
        assertTrue(
                array.getMessage().contains("its package.json is not a JSON object (found array)"), array.getMessage());
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDeviceAsFromIsNamedAsADeviceNotAsMissing() {
        RuntimeLibraryException e = refused(Path.of("/dev/zero"));

        assertTrue(e.getMessage().startsWith("--from /dev/zero: is a FIFO, socket or device"), e.getMessage());
        assertFalse(e.getMessage().contains("no such file"), e.getMessage());
    }
}
