package dev.flux2.onnx.runtime;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Extracts chosen regular files from a gzip-compressed tar archive (an npm package tarball): ustar names with their
 * prefix, and pax {@code path} records. Only the names asked for are written, to the given files; nothing in the
 * archive chooses where a file lands, so a hostile name cannot escape the target folder. Stateless.
 */
final class TarGz {
    private static final int BLOCK = 512;

    private TarGz() {}

    /**
     * @param archive the {@code .tgz} file
     * @param wanted archive entry name → the file to write it to
     * @return the entry names found (and written)
     * @throws IOException when the archive cannot be read or is not a tar.gz
     */
    static Set<String> extract(Path archive, Map<String, Path> wanted) throws IOException {
        return extract(archive, wanted, name -> Long.MAX_VALUE);
    }

    /** The most bytes an entry may have; a larger one is refused before any of it is written. */
    @FunctionalInterface
    interface SizeLimit {
        long maxBytes(String entry);
    }

    /**
     * As {@link #extract(Path, Map)}, each wanted entry bounded: a tarball of a megabyte whose library inflates to
     * a gigabyte is refused from its header, before the disk fills.
     *
     * @param archive the {@code .tgz} file
     * @param wanted archive entry name → the file to write it to
     * @param limit the most bytes each wanted entry may have
     * @return the entry names found (and written)
     * @throws IOException when the archive cannot be read, is not a tar.gz, or a wanted entry is over its limit
     *     (the message names the entry, its size and the limit)
     */
    static Set<String> extract(Path archive, Map<String, Path> wanted, SizeLimit limit) throws IOException {
        Map<String, Path> remaining = new HashMap<>(wanted);
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(archive)), 65536)) {
            byte[] header = new byte[BLOCK];
            String paxPath = null;
            while (readBlock(in, header)) {
                if (isZero(header)) {
                    break;
                }
                String name = string(header, 0, 100);
                long size = octal(header, 124, 12);
                char type = (char) header[156];
                String prefix = string(header, 345, 155);
                if (!prefix.isEmpty() && "ustar".equals(string(header, 257, 5))) {
                    name = prefix + "/" + name;
                }
                if (type == 'x') {
                    paxPath = paxPath(readBytes(in, size));
                    skipPadding(in, size);
                    continue;
                }
                if (type == 'g') {
                    skipFully(in, size + padding(size));
                    continue;
                }
                if (paxPath != null) {
                    name = paxPath;
                    paxPath = null;
                }
                Path target = (type == '0' || type == '\0') ? remaining.remove(name) : null;
                if (target != null) {
                    long max = limit.maxBytes(name);
                    if (size > max) {
                        throw new EntryTooLarge(name, size, max);
                    }
                    try (OutputStream out = Files.newOutputStream(target)) {
                        copy(in, out, size);
                    }
                    skipPadding(in, size);
                } else {
                    skipFully(in, size + padding(size));
                }
            }
        }
        Set<String> found = new java.util.HashSet<>(wanted.keySet());
        found.removeAll(remaining.keySet());
        return found;
    }

    /** A wanted entry larger than its limit. */
    static final class EntryTooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        EntryTooLarge(String name, long size, long max) {
            super(name + " is " + size + " bytes, more than the " + max + " bytes allowed for it");
        }
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int n = in.readNBytes(block, 0, BLOCK);
        if (n == 0) {
            return false;
        }
        if (n < BLOCK) {
            throw new EOFException("truncated tar header");
        }
        return true;
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static String string(byte[] b, int off, int len) {
        int end = off;
        while (end < off + len && b[end] != 0) {
            end++;
        }
        return new String(b, off, end - off, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] b, int off, int len) throws IOException {
        String s = string(b, off, len).trim();
        if (s.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(s, 8);
        } catch (NumberFormatException e) {
            throw new IOException("not a tar archive (bad size field '" + s + "')", e);
        }
    }

    private static byte[] readBytes(InputStream in, long size) throws IOException {
        if (size > 1 << 20) {
            throw new IOException("pax header of " + size + " bytes");
        }
        byte[] b = in.readNBytes((int) size);
        if (b.length < size) {
            throw new EOFException("truncated pax header");
        }
        return b;
    }

    /** A pax extended header: records {@code "<len> <key>=<value>\n"}. */
    private static String paxPath(byte[] records) {
        String text = new String(records, StandardCharsets.UTF_8);
        String path = null;
        for (String line : text.split("\n")) {
            int space = line.indexOf(' ');
            int eq = line.indexOf('=');
            if (space > 0 && eq > space && line.substring(space + 1, eq).equals("path")) {
                path = line.substring(eq + 1);
            }
        }
        return path;
    }

    private static long padding(long size) {
        return (BLOCK - size % BLOCK) % BLOCK;
    }

    private static void skipPadding(InputStream in, long size) throws IOException {
        skipFully(in, padding(size));
    }

    private static void skipFully(InputStream in, long n) throws IOException {
        in.skipNBytes(n);
    }

    private static void copy(InputStream in, OutputStream out, long size) throws IOException {
        byte[] buf = new byte[65536];
        long left = size;
        while (left > 0) {
            int n = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (n < 0) {
                throw new EOFException("truncated tar entry");
            }
            out.write(buf, 0, n);
            left -= n;
        }
    }
}
