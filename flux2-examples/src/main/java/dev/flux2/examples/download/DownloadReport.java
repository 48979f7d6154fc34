package dev.flux2.examples.download;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The result of a complete, verified bundle download.
 *
 * @param directory the bundle folder
 * @param files every file considered, in download order
 * @param hashVerified whether sizes and BLAKE3 digests were checked against a pinned known-bundle list (true only
 *     for a known repository and revision)
 */
public record DownloadReport(Path directory, List<DownloadedFile> files, boolean hashVerified) {
    /** Copies the list. */
    public DownloadReport {
        Objects.requireNonNull(directory, "directory");
        files = List.copyOf(files);
    }

    /** @return bytes of all files present in the folder */
    public long totalBytes() {
        return files.stream().mapToLong(DownloadedFile::bytes).sum();
    }

    /** @return bytes fetched over the network in this run */
    public long transferredBytes() {
        return files.stream()
                .filter(f -> f.outcome() == DownloadedFile.Outcome.DOWNLOADED)
                .mapToLong(f -> f.bytes() - f.resumedFrom())
                .sum();
    }
}
