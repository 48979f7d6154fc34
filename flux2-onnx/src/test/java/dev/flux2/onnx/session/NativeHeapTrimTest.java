package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.jna.Memory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class NativeHeapTrimTest {
    private static final long MIB = 1 << 20;

    @Test
    void returnsFreedSmallCHeapBlocksToTheOperatingSystem() throws IOException {
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "needs /proc and glibc");
        assumeTrue(isGlibc(), "malloc_trim is glibc's");
        NativeHeapTrim.trim();
        // 96 MiB in 16 KiB blocks (below glibc's mmap threshold, so they come from the heap), touched, then freed
        // while the last block stays in use, so that free() alone cannot shrink the heap from its top.
        List<Memory> blocks = new ArrayList<>();
        for (int i = 0; i < 96 * 64; i++) {
            Memory m = new Memory(16 << 10);
            m.clear();
            blocks.add(m);
        }
        Memory tail = blocks.remove(blocks.size() - 1); // keeps the heap top in use
        long before = rss();
        blocks.forEach(Memory::close);
        blocks.clear();
        long freed = rss();
        boolean released = NativeHeapTrim.trim();
        long trimmed = rss();
        tail.close();
        assertTrue(released, "malloc_trim reported nothing released");
        assertTrue(
                freed - trimmed >= 48 * MIB,
                "trim returned only " + (freed - trimmed) / MIB + " MiB (VmRSS "
                        + before / MIB + " MiB with the blocks, " + freed / MIB + " after free, " + trimmed / MIB
                        + " after trim)");
    }

    private static boolean isGlibc() {
        try {
            com.sun.jna.NativeLibrary.getInstance("c").getFunction("gnu_get_libc_version");
            return true;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    private static long rss() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
