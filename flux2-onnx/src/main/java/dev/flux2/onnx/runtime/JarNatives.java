package dev.flux2.onnx.runtime;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Extracts chosen entries of a jar (a zip file), bounded: each entry may hold at most its limit, by the size its
 * header declares and by the bytes actually inflated (a zip bomb stops at the limit, whatever it declares), and the
 * entries together at most the total limit. Only the names asked for are written, to the given files: nothing in the
 * archive chooses where a file lands. Stateless.
 */
final class JarNatives {
    private JarNatives() {}

    /**
     * One entry to extract.
     *
     * @param target the file to write
     * @param limit the most bytes the entry may hold
     */
    record Wanted(Path target, long limit) {}

    /**
     * @param jar the jar
     * @param wanted entry name → where it goes and its limit
     * @param totalLimit the most bytes all entries may hold together
     * @return the entry names missing from the jar (nothing written for them)
     * @throws IOException when the jar cannot be read, is not a zip file, or an entry is past a limit (the message
     *     names the entry, the limit and the size declared or reached)
     */
    static java.util.Set<String> extract(Path jar, Map<String, Wanted> wanted, long totalLimit) throws IOException {
        java.util.Set<String> missing = new java.util.LinkedHashSet<>();
        long total = 0;
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (Map.Entry<String, Wanted> w : wanted.entrySet()) {
                ZipEntry entry = zip.getEntry(w.getKey());
                if (entry == null || entry.isDirectory()) {
                    missing.add(w.getKey());
                    continue;
                }
                long limit = w.getValue().limit();
                if (entry.getSize() > limit) {
                    throw new IOException(w.getKey() + " declares " + entry.getSize() + " bytes, more than the " + limit
                            + " allowed for it");
                }
                try (InputStream in = zip.getInputStream(entry);
                        OutputStream out = Files.newOutputStream(w.getValue().target())) {
                    long n = copyAtMost(in, out, Math.min(limit, totalLimit - total), w.getKey());
                    if (entry.getSize() >= 0 && n != entry.getSize()) {
                        throw new EOFException(w.getKey() + " holds " + n + " bytes but declares " + entry.getSize());
                    }
                    total += n;
                }
            }
        }
        return missing;
    }

    private static long copyAtMost(InputStream in, OutputStream out, long limit, String name) throws IOException {
        byte[] buf = new byte[1 << 16];
        long n = 0;
        int r;
        while ((r = in.read(buf)) > 0) {
            n += r;
            if (n > limit) {
                throw new IOException(name + " inflates to more than " + limit + " bytes (the limit for it and what"
                        + " is left of the total): not the expected file, or a zip bomb");
            }
            out.write(buf, 0, r);
        }
        return n;
    }
}
