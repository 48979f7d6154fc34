package dev.flux2.onnx.runtime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * A miniature onnxruntime-node package: a ustar .tgz (written here, independently of {@link TarGz}) with a
 * package.json and made-up library bytes, and a pin computed from those bytes with the JDK's SHA-512.
 */
final class FakePackage {
    static final byte[] LIBRARY = "\u007fELF fake onnxruntime library".getBytes(StandardCharsets.ISO_8859_1);

    private FakePackage() {}

    static String sha512Hex(byte[] bytes) {
        return HexFormat.of().formatHex(digest(bytes));
    }

    static String integrity(Path file) throws IOException {
        return "sha512-" + Base64.getEncoder().encodeToString(digest(Files.readAllBytes(file)));
    }

    private static byte[] digest(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-512").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A pin for linux-x64 whose library is {@link #LIBRARY}. */
    static RuntimePin pin(String tarballIntegrity) {
        return new RuntimePin(
                "1.26.0",
                "onnxruntime-node",
                tarballIntegrity,
                Map.of(OrtPlatform.LINUX_X64, Map.of("libonnxruntime.so.1", sha512Hex(LIBRARY))));
    }

    /** Writes the package tarball of the given version, with the library bytes given. */
    static Path tarball(Path file, String version, byte[] library) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put(
                "package/package.json",
                ("{\"name\": \"onnxruntime-node\", \"version\": \"" + version + "\"}")
                        .getBytes(StandardCharsets.UTF_8));
        entries.put("package/bin/napi-v6/linux/arm64/libonnxruntime.so.1", "other platform".getBytes());
        entries.put("package/bin/napi-v6/linux/x64/libonnxruntime.so.1", library);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                out.write(header(e.getKey(), e.getValue().length));
                out.write(e.getValue());
                out.write(new byte[(512 - e.getValue().length % 512) % 512]);
            }
            out.write(new byte[1024]);
        }
        return file;
    }

    /**
     * Writes a tarball of the given entries, each with the size its header declares (which may exceed the bytes
     * that follow, as a hostile archive's may), then its bytes.
     */
    static Path tarball(Path file, Map<String, byte[]> entries, Map<String, Long> declared) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                long size = declared.getOrDefault(e.getKey(), (long) e.getValue().length);
                out.write(header(e.getKey(), size));
                out.write(e.getValue());
                out.write(new byte[(512 - e.getValue().length % 512) % 512]);
            }
            out.write(new byte[1024]);
        }
        return file;
    }

    private static byte[] header(String name, long size) {
        byte[] h = new byte[512];
        put(h, 0, name);
        put(h, 100, "0000644");
        put(h, 108, "0000000");
        put(h, 116, "0000000");
        put(h, 124, String.format("%011o", size));
        put(h, 136, "00000000000");
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        h[156] = '0';
        put(h, 257, "ustar");
        h[263] = '0';
        h[264] = '0';
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        put(h, 148, String.format("%06o", sum));
        h[154] = 0;
        return h;
    }

    private static void put(byte[] h, int off, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, h, off, b.length);
    }

    /** @return the bytes, for tests that need them */
    static byte[] bytes(String s) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        return o.toByteArray();
    }
}
