package dev.flux2.hub;

import java.util.List;
import java.util.Objects;

/**
 * What a resolution is about to fetch: announced to {@link DownloadListener#downloadPlanned} before the first
 * byte.
 *
 * @param repo the repository id, {@code owner/name}
 * @param commit the commit being fetched
 * @param paths the files to fetch, in fetch order
 * @param totalBytes their combined size
 * @param presentBytes bytes of them already on disk from interrupted transfers (resumed, not fetched again)
 */
public record DownloadPlan(String repo, String commit, List<String> paths, long totalBytes, long presentBytes) {
    /** Copies the list. */
    public DownloadPlan {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(commit, "commit");
        paths = List.copyOf(paths);
    }

    /** @return how many files will be fetched */
    public int fileCount() {
        return paths.size();
    }
}
