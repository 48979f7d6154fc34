package dev.flux2.cli;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Checks output files before the model loads, so an unusable path fails in milliseconds (exit 2) instead of after the
 * generation: the extension names a supported format, the target is not a folder, its folder exists (created if
 * missing) on a real file system (not {@code /proc}, {@code /sys}, {@code /dev}…) and a file can be created in it
 * (probed with a temporary file, which also catches read-only mounts).
 */
final class OutputCheck {
    /** File systems that hold no files: writing there loses the image. */
    private static final Set<String> PSEUDO_FILE_SYSTEMS = Set.of(
            "proc",
            "sysfs",
            "devtmpfs",
            "devpts",
            "cgroup",
            "cgroup2",
            "debugfs",
            "tracefs",
            "securityfs",
            "configfs",
            "fusectl",
            "pstore",
            "bpf",
            "mqueue",
            "hugetlbfs",
            "efivarfs",
            "autofs",
            "binfmt_misc");

    private OutputCheck() {}

    /**
     * @param file an output file
     * @throws InvalidRequestException naming the file and the reason
     */
    static void check(Path file) {
        ImageFormat.of(file);
        Path absolute = file.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            throw unusable(file, "it is a directory");
        }
        Path parent = absolute.getParent();
        if (parent == null) {
            throw unusable(file, "it has no parent folder");
        }
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw unusable(file, "its folder " + parent + " cannot be created: " + ImageFileWriter.reason(e));
        }
        try {
            FileStore store = Files.getFileStore(parent);
            String type = store.type().toLowerCase(Locale.ROOT);
            if (PSEUDO_FILE_SYSTEMS.contains(type)) {
                throw unusable(
                        file,
                        "its folder is on the pseudo file system " + type + " (" + store + "), which holds"
                                + " no files");
            }
        } catch (IOException e) {
            throw unusable(file, "its folder's file system cannot be read: " + ImageFileWriter.reason(e));
        }
        if (Files.exists(absolute) && !Files.isRegularFile(absolute)) {
            throw unusable(file, "it exists and is not a regular file");
        }
        if (Files.exists(absolute) && !Files.isWritable(absolute)) {
            throw unusable(file, "it exists and is not writable (permission denied)");
        }
        Path probe = parent.resolve("." + absolute.getFileName() + ".probe-" + System.nanoTime());
        try {
            Files.createFile(probe);
        } catch (IOException e) {
            throw unusable(file, "no file can be created in " + parent + ": " + ImageFileWriter.reason(e));
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // Created and not deletable is not this check's business; the write will tell.
            }
        }
    }

    private static InvalidRequestException unusable(Path file, String reason) {
        return new InvalidRequestException("output " + file + " cannot be written: " + reason);
    }
}
