package dev.flux2.cli;

import java.util.Locale;

/** Byte counts for humans (binary units). */
final class Sizes {
    private Sizes() {}

    /**
     * @param bytes a byte count
     * @return for example {@code 4.87 GiB}
     */
    static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.2f %s", v, units[u]);
    }
}
