package dev.flux2.examples.download;

import java.util.Objects;

/**
 * What the downloader did with one file of the bundle.
 *
 * @param path the file's path in the repository (and below the target folder)
 * @param outcome what happened
 * @param bytes the file's size on disk (0 when absent)
 * @param resumedFrom the offset a resumed transfer started at (0 when not resumed)
 */
public record DownloadedFile(String path, Outcome outcome, long bytes, long resumedFrom) {

    /** What happened to one file. */
    public enum Outcome {
        /** Fetched in this run (from the start or resumed from a {@code .part} file). */
        DOWNLOADED,
        /** Already complete in the target folder; not fetched again. */
        ALREADY_PRESENT,
        /** Not in the repository (HTTP 404) and not required, for example a graph this revision lacks. */
        ABSENT_OPTIONAL
    }

    /** Checks for nulls. */
    public DownloadedFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(outcome, "outcome");
    }
}
