package dev.flux2.hub;

import java.util.Objects;

/**
 * One file of a repository at a commit, as the hub lists it.
 *
 * @param path the file's path in the repository, {@code /}-separated
 * @param size its size in bytes, or -1 when the listing did not say
 * @param etag its normalised ETag (the LFS SHA-256, else the git blob SHA-1), or null when the listing did not say
 */
record RemoteFile(String path, long size, String etag) {
    RemoteFile {
        Objects.requireNonNull(path, "path");
    }

    /** @return whether size and ETag are both known without a further request */
    boolean described() {
        return size >= 0 && etag != null;
    }

    /**
     * @param size the size
     * @param etag the ETag
     * @return this file with both set
     */
    RemoteFile with(long size, String etag) {
        return new RemoteFile(path, size, etag);
    }
}
