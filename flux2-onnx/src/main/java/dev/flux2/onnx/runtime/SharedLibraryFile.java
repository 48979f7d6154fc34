package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks a shared library's file before the dynamic loader maps it: the loader maps an ELF file's segments as its
 * program headers say, and touching a segment past the end of a truncated file (a partial download or copy) is a
 * SIGBUS that kills the JVM (exit 134, an {@code hs_err} log) instead of an error. For ELF (Linux) the header, the
 * program and section header tables and every segment's bytes must lie inside the file; Mach-O and PE are
 * recognised by their magic only. Reads the headers only; stateless.
 */
final class SharedLibraryFile {
    private static final int ELF_HEADER_64 = 64;
    private static final int ELF_HEADER_32 = 52;

    private SharedLibraryFile() {}

    /**
     * @param lib a regular file
     * @return what is wrong with it, or empty when the loader may map it
     * @throws IOException when it cannot be read
     */
    static Optional<String> problem(Path lib) throws IOException {
        try (FileChannel ch = FileChannel.open(lib, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = read(ch, 0, (int) Math.min(size, ELF_HEADER_64));
            byte[] magic = new byte[Math.min(4, head.remaining())];
            head.get(0, magic);
            if (magic.length == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F') {
                return elf(ch, size, head);
            }
            int m = magic.length < 4
                    ? 0
                    : ((magic[0] & 0xff) << 24)
                            | ((magic[1] & 0xff) << 16)
                            | ((magic[2] & 0xff) << 8)
                            | (magic[3] & 0xff);
            boolean pe = magic.length >= 2 && magic[0] == 'M' && magic[1] == 'Z';
            boolean macho = m == 0xcffaedfe || m == 0xfeedfacf || m == 0xcafebabe;
            return pe || macho
                    ? Optional.empty()
                    : Optional.of("is not a shared library (no ELF, Mach-O or PE header; " + size + " bytes)");
        }
    }

    private static Optional<String> elf(FileChannel ch, long size, ByteBuffer head) throws IOException {
        boolean wide = head.remaining() > 4 && head.get(4) == 2;
        int headerSize = wide ? ELF_HEADER_64 : ELF_HEADER_32;
        if (size < headerSize) {
            return truncated("its ELF header needs " + headerSize + " bytes", size);
        }
        head.order(head.get(5) == 2 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        long phoff = wide ? head.getLong(0x20) : Integer.toUnsignedLong(head.getInt(0x1C));
        long shoff = wide ? head.getLong(0x28) : Integer.toUnsignedLong(head.getInt(0x20));
        int phentsize = Short.toUnsignedInt(head.getShort(wide ? 0x36 : 0x2A));
        int phnum = Short.toUnsignedInt(head.getShort(wide ? 0x38 : 0x2C));
        int shentsize = Short.toUnsignedInt(head.getShort(wide ? 0x3A : 0x2E));
        int shnum = Short.toUnsignedInt(head.getShort(wide ? 0x3C : 0x30));
        long phEnd = end(phoff, (long) phnum * phentsize);
        if (phnum > 0 && phEnd > size) {
            return truncated("its program headers end at byte " + phEnd, size);
        }
        long shEnd = end(shoff, (long) shnum * shentsize);
        if (shnum > 0 && shEnd > size) {
            return truncated("its section headers end at byte " + shEnd, size);
        }
        if (phnum == 0) {
            return Optional.empty();
        }
        ByteBuffer table = read(ch, phoff, (int) ((long) phnum * phentsize)).order(head.order());
        for (int i = 0; i < phnum; i++) {
            int at = i * phentsize;
            long offset = wide ? table.getLong(at + 8) : Integer.toUnsignedLong(table.getInt(at + 4));
            long fileSize = wide ? table.getLong(at + 32) : Integer.toUnsignedLong(table.getInt(at + 16));
            long segmentEnd = end(offset, fileSize);
            if (fileSize > 0 && segmentEnd > size) {
                return truncated("its segment " + i + " ends at byte " + segmentEnd, size);
            }
        }
        return Optional.empty();
    }

    /** Saturates instead of overflowing: a hostile header's huge values are "past the end", not negative. */
    private static long end(long offset, long length) {
        if (offset < 0 || length < 0) {
            return Long.MAX_VALUE;
        }
        long sum = offset + length;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static Optional<String> truncated(String what, long size) {
        return Optional.of(String.format(
                Locale.ROOT,
                "is truncated or corrupt: %s, but the file has %d bytes (a partial download or copy?); loading it"
                        + " would crash the JVM",
                what,
                size));
    }

    private static ByteBuffer read(FileChannel ch, long at, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            if (ch.read(b, at + b.position()) < 0) {
                break;
            }
        }
        return b.flip();
    }
}
