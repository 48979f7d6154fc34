package dev.flux2.hub;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Checks, before the first byte is written, that the file system can take what a download still needs: a hub that
 * lists a 10¹² byte file must be refused by a message naming the sizes, not by a full disk and a misleading HTTP
 * error later.
 */
final class DiskSpace {
    private DiskSpace() {}

    /**
     * @param ref what is being fetched
     * @param folder where the bytes go (it or its nearest existing parent is measured)
     * @param needed the bytes still to be written
     * @throws HubException when fewer bytes are free
     */
    static void check(RepoRef ref, Path folder, long needed) {
        if (needed <= 0) {
            return;
        }
        Path existing = folder.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return;
        }
        long usable;
        try {
            FileStore store = Files.getFileStore(existing);
            usable = store.getUsableSpace();
        } catch (IOException e) {
            return; // an unknown free space is not a reason to refuse: the write itself will say
        }
        if (needed > usable) {
            throw new HubException(String.format(
                    Locale.ROOT,
                    "not enough free space for %s: its missing files need %,d bytes (%s), %,d bytes (%s) are free"
                            + " at %s; free some space, or use another hub cache (HF_HUB_CACHE) or folder (--dir)",
                    ref,
                    needed,
                    human(needed),
                    usable,
                    human(usable),
                    existing));
        }
    }

    private static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
