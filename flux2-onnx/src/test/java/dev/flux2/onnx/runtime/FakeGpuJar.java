package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A miniature {@code onnxruntime_gpu} jar: the linux-x64 native folder with made-up library bytes (and a TensorRT
 * provider and another platform's files that the install must leave out), written with the JDK's zip writer, and a
 * pin computed from those bytes with the JDK's SHA-512 ({@link FakePackage#sha512Hex}).
 */
final class FakeGpuJar {
    static final String FOLDER = "ai/onnxruntime/native/linux-x64/";
    /** The linux-x64 files, in the pin's order (core first). */
    static final Map<String, byte[]> FILES = files();

    private FakeGpuJar() {}

    private static Map<String, byte[]> files() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("libonnxruntime.so", bytes("\u007fELF fake core library of onnxruntime_gpu"));
        m.put("libonnxruntime4j_jni.so", bytes("\u007fELF fake JNI glue built with CUDA"));
        m.put("libonnxruntime_providers_shared.so", bytes("\u007fELF fake shared provider bridge"));
        m.put("libonnxruntime_providers_cuda.so", bytes("\u007fELF fake CUDA provider, the large one"));
        return m;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The pin of {@link #FILES} for linux-x64, with the given jar sha512. */
    static CudaRuntimePin pin(String jarSha512) {
        List<CudaRuntimePin.PinnedFile> pinned = new ArrayList<>();
        FILES.forEach((name, b) -> pinned.add(new CudaRuntimePin.PinnedFile(name, b.length, FakePackage.sha512Hex(b))));
        return new CudaRuntimePin(
                "1.26.0",
                "com.microsoft.onnxruntime",
                "onnxruntime_gpu",
                jarSha512,
                Map.of(OrtPlatform.LINUX_X64, new CudaRuntimePin.Natives("linux-x64", pinned)));
    }

    /** Writes the jar with {@link #FILES}, a TensorRT provider and a win-x64 file. */
    static Path jar(Path file) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        FILES.forEach((name, b) -> entries.put(FOLDER + name, b));
        entries.put(FOLDER + "libonnxruntime_providers_tensorrt.so", bytes("not installed"));
        entries.put("ai/onnxruntime/native/win-x64/onnxruntime.dll", bytes("MZ other platform"));
        return jar(file, entries);
    }

    /** Writes a jar of the given entries (deflated). */
    static Path jar(Path file, Map<String, byte[]> entries) throws IOException {
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            zip.putNextEntry(new ZipEntry("META-INF/MANIFEST.MF"));
            zip.write(bytes("Manifest-Version: 1.0\n"));
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        return file;
    }

    /** Writes the native files into a folder laid out as the jar's ({@code <root>/ai/onnxruntime/native/...}). */
    static Path unpacked(Path root, Map<String, byte[]> files) throws IOException {
        Path dir = Files.createDirectories(root.resolve(FOLDER));
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            try (OutputStream out = Files.newOutputStream(dir.resolve(e.getKey()))) {
                out.write(e.getValue());
            }
        }
        return root;
    }

    /**
     * Rewrites the uncompressed size the central directory declares for an entry: a jar whose entry inflates to
     * more than it declares.
     */
    static void declareSize(Path jar, String entry, int declared) throws IOException {
        byte[] b = Files.readAllBytes(jar);
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        byte[] name = entry.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i + 46 < b.length; i++) {
            if (buf.getInt(i) == 0x02014b50 && buf.getShort(i + 28) == name.length) {
                String found = new String(b, i + 46, name.length, StandardCharsets.UTF_8);
                if (found.equals(entry)) {
                    buf.putInt(i + 24, declared);
                    Files.write(jar, b);
                    return;
                }
            }
        }
        throw new IllegalStateException("no central directory entry " + entry);
    }
}
