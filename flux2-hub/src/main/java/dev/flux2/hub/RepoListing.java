package dev.flux2.hub;

import java.util.List;
import java.util.Objects;

/**
 * A repository's files at a commit, as {@code GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true}
 * answers ({@code HfApi.model_info} with {@code files_metadata=True}): {@code sha} and {@code siblings[]} with
 * {@code rfilename}, {@code size}, {@code blobId} and {@code lfs.sha256}.
 *
 * @param commit the commit the revision points at
 * @param files every file
 */
record RepoListing(String commit, List<RemoteFile> files) {
    RepoListing {
        Objects.requireNonNull(commit, "commit");
        files = List.copyOf(files);
    }

    /**
     * @return the files a bundle needs ({@link RepoPaths#isBundleFile}), sorted by path
     * @throws HubException when one of them has an unsafe name
     */
    List<RemoteFile> bundleFiles() {
        List<RemoteFile> selected = files.stream()
                .filter(f -> RepoPaths.isBundleFile(f.path()))
                .sorted(java.util.Comparator.comparing(RemoteFile::path))
                .toList();
        selected.forEach(f -> RepoPaths.check(f.path()));
        return selected;
    }
}
