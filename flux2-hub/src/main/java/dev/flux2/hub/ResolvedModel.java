package dev.flux2.hub;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A model in place and verified.
 *
 * @param directory the model folder (a snapshot folder of the hub cache, or the plain folder asked for)
 * @param ref the repository and revision asked for
 * @param commit the commit the revision resolved to
 * @param fileCount the number of files of the model
 * @param totalBytes their combined size
 * @param downloadedFiles files fetched in this run
 * @param downloadedBytes bytes fetched over the network in this run (resumed prefixes excluded)
 * @param requests whether the hub was asked at all (false: a complete cache was used without any request)
 */
public record ResolvedModel(
        Path directory,
        RepoRef ref,
        String commit,
        int fileCount,
        long totalBytes,
        int downloadedFiles,
        long downloadedBytes,
        boolean requests) {
    /** Checks for nulls. */
    public ResolvedModel {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(commit, "commit");
    }
}
