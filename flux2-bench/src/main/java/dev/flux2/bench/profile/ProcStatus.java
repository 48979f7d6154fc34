package dev.flux2.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads this process's memory counters from {@code /proc/self/status} (Linux). */
final class ProcStatus {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path CLEAR_REFS = Path.of("/proc/self/clear_refs");

    private ProcStatus() {}

    /** @return peak resident set size (VmHWM) in bytes */
    static long peakRssBytes() {
        return field("VmHWM");
    }

    /** @return current resident set size (VmRSS) in bytes */
    static long rssBytes() {
        return field("VmRSS");
    }

    /**
     * Resets VmHWM to the current VmRSS (writes 5 to {@code /proc/self/clear_refs}, Linux 4.0+), so that the next
     * {@link #peakRssBytes()} is the peak of what ran since.
     */
    static void resetPeak() {
        try {
            Files.writeString(CLEAR_REFS, "5");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset the peak RSS through " + CLEAR_REFS, e);
        }
    }

    private static long field(String name) {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(name + ":")) {
                    String[] parts = line.substring(name.length() + 1).trim().split("\\s+");
                    if (parts.length != 2 || !parts[1].equals("kB")) {
                        throw new IllegalStateException("unexpected " + STATUS + " line: " + line);
                    }
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
            throw new IllegalStateException(STATUS + " has no " + name + " line");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + STATUS + " (the profile's memory figures need Linux)", e);
        }
    }
}
