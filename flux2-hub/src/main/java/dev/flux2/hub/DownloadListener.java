package dev.flux2.hub;

/**
 * Receives the progress of fetching a model by name (see {@link HubOptions}), on the resolving thread.
 * Implementations must be quick and must not throw. Every method has an empty default.
 */
public interface DownloadListener {
    /** A listener that ignores every event. */
    DownloadListener NONE = new DownloadListener() {};

    /**
     * Called once per resolution, before the first byte is fetched, and only when something must be fetched.
     *
     * @param plan what will be fetched
     */
    default void downloadPlanned(DownloadPlan plan) {}

    /**
     * A transfer begins (or resumes).
     *
     * @param path the file's path in the repository
     * @param offset bytes already present from an earlier, interrupted transfer (0 for a fresh one)
     * @param totalBytes the file's full size, or -1 when unknown
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
     * A file is in place and verified.
     *
     * @param path the file's path in the repository
     * @param bytes its size
     * @param downloaded whether it was fetched in this run (false: it was already there)
     */
    default void fileReady(String path, long bytes, boolean downloaded) {}
}
