package dev.flux2.examples.download;

/**
 * Receives the progress of a bundle download, on the downloading thread. Implementations must be quick and must
 * not throw.
 */
public interface DownloadListener {
    /** A listener that ignores every event. */
    DownloadListener NONE = new DownloadListener() {};

    /**
     * A transfer begins.
     *
     * @param path the file's path in the repository
     * @param offset bytes already present from an earlier, interrupted run (0 for a fresh transfer)
     * @param totalBytes the file's full size, or -1 when the server does not say
     */
    default void transferStarted(String path, long offset, long totalBytes) {}

    /**
     * More bytes arrived.
     *
     * @param path the file's path in the repository
     * @param bytesSoFar bytes of the file now on disk (including a resumed prefix)
     */
    default void transferProgress(String path, long bytesSoFar) {}

    /**
     * A file is done (downloaded, already present, or absent but optional).
     *
     * @param file what happened to it
     */
    default void fileDone(DownloadedFile file) {}
}
