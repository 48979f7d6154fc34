package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where the inspection takes a file's size from: the disk, or for a file absent from the folder the size a hub's
 * file list gives it ({@code flux2 info --model REPO} fetches no external data, so each shard is checked against
 * its listed size as it would be against its size on disk). A file neither on disk nor listed is absent. Remembers
 * which files were answered from the listing, so the description can say so; one per inspection, not thread-safe.
 */
public final class FileSizes {
    private final Path folder;
    private final Map<String, Long> listed;
    private final Set<String> fromListing = new TreeSet<>();

    private FileSizes(Path folder, Map<String, Long> listed) {
        this.folder = folder.toAbsolutePath().normalize();
        this.listed = Map.copyOf(listed);
    }

    /** @return sizes from the disk only, as for a model folder */
    public static FileSizes disk() {
        return new FileSizes(Path.of(""), Map.of());
    }

    /**
     * @param folder the model folder the listed paths are relative to
     * @param listed sizes of files by path relative to the folder with {@code /} separators
     * @return sizes from the disk, else from the listing
     */
    public static FileSizes listed(Path folder, Map<String, Long> listed) {
        return new FileSizes(folder, listed);
    }

    /**
     * @param path a file
     * @return its size on disk, else its listed size, or -1 when it is neither a regular file nor listed
     * @throws ModelLoadException when the size of a file on disk cannot be read (not reported as a missing file)
     */
    public long sizeOf(Path path) {
        try {
            if (Files.isRegularFile(path)) {
                return Files.size(path);
            }
        } catch (IOException e) {
            throw new ModelLoadException("cannot read the size of " + path + ": " + ModelFiles.reason(e), e);
        }
        if (listed.isEmpty() || Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return -1; // something else than a file is there: reported as what it is, not taken from the listing
        }
        String name = BundleValidator.display(folder, path);
        Long size = listed.get(name);
        if (size == null) {
            return -1;
        }
        fromListing.add(name);
        return size;
    }

    /** @return what to add to "is missing from FOLDER": that the file is not in the listing either, when one is used */
    public String absenceNote() {
        return listed.isEmpty() ? "" : " and has no size in the hub's file list";
    }

    /** @return the files whose size came from the listing, by path relative to the folder, sorted */
    public Set<String> fromListing() {
        return Set.copyOf(fromListing);
    }
}
