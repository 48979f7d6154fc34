package dev.flux2.hub;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Every file of a model folder hashed again and compared with what it must be: the pinned list (size and
 * BLAKE3) for the pinned default bundle, and the hub's ETags kept in the cache (or in a plain folder's
 * {@code .cache/huggingface/download/*.metadata}) for any repository.
 *
 * @param directory the folder verified
 * @param basis what the expected values come from, for display
 * @param files one verdict per file
 */
public record VerificationReport(Path directory, String basis, List<FileVerification> files) {
    /** Copies the list. */
    public VerificationReport {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(basis, "basis");
        files = List.copyOf(files);
    }

    /** @return whether every file is there and matches (files with nothing to compare against count as ok) */
    public boolean ok() {
        return files.stream()
                .allMatch(f ->
                        f.status() == FileVerification.Status.OK || f.status() == FileVerification.Status.UNVERIFIABLE);
    }

    /**
     * @return whether any file was compared with a recorded size or digest; false when nothing records what the
     *     files must be (a folder copied by hand), so that only their presence was checked
     */
    public boolean compared() {
        return files.stream().anyMatch(f -> !f.algorithm().equals("none"));
    }

    /** @return the files that are missing or differ */
    public List<FileVerification> failures() {
        return files.stream()
                .filter(f ->
                        f.status() == FileVerification.Status.MISSING || f.status() == FileVerification.Status.MISMATCH)
                .toList();
    }
}
