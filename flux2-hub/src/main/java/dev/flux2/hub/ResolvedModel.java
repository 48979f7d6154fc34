package dev.flux2.hub;

import java.nio.file.Path;
import java.util.Map;
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
 * @param listedSizes the size of each of the model's files by repository path ({@code transformer/model.onnx_data}),
 *     as the hub's file list gives it, files the listing gives no size for left out: what describes the files a
 *     {@link FileSelection} left unfetched; empty when no listing was used (a complete cache, a plain folder)
 */
public record ResolvedModel(
        Path directory,
        RepoRef ref,
        String commit,
        int fileCount,
        long totalBytes,
        int downloadedFiles,
        long downloadedBytes,
        boolean requests,
        Map<String, Long> listedSizes) {
    /** Checks for nulls; copies the sizes. */
    public ResolvedModel {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(commit, "commit");
        listedSizes = Map.copyOf(Objects.requireNonNull(listedSizes, "listedSizes"));
    }

    /** A model resolved without the hub's listing of sizes (a complete cache, a plain folder). */
    public ResolvedModel(
            Path directory,
            RepoRef ref,
            String commit,
            int fileCount,
            long totalBytes,
            int downloadedFiles,
            long downloadedBytes,
            boolean requests) {
        this(directory, ref, commit, fileCount, totalBytes, downloadedFiles, downloadedBytes, requests, Map.of());
    }
}
