package dev.flux2.hub;

import dev.flux2.hub.KnownBundles.KnownFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where resolved files go: the hub cache ({@link CacheStore}: blobs, snapshot links, refs) or a plain folder
 * ({@link FolderStore}). The download, verification and locking around it are the same for both.
 */
interface Store {
    /** @return the folder the model is used from */
    Path folder();

    /**
     * @param file a file
     * @return the lock file guarding its transfer and installation
     */
    Path lockFile(RemoteFile file);

    /**
     * @param file a file
     * @return where its transfer accumulates until complete and verified (resumed on the next run)
     */
    Path incomplete(RemoteFile file);

    /**
     * Whether the file is in place and verified: trusted from an earlier full hash while its size and modification
     * time are unchanged, otherwise hashed now. A copy that fails is deleted (with a warning naming the file, the
     * expected and the actual values) so that it is fetched again.
     *
     * @param file the file
     * @param pinned its pinned size and BLAKE3, or null
     * @return empty when it is ready; otherwise why not ({@code missing}, or what differs)
     * @throws IOException when the disk cannot be read or written
     */
    Optional<String> problem(RemoteFile file, KnownFile pinned) throws IOException;

    /**
     * Moves a complete, verified transfer into place (atomically) and records the verification.
     *
     * @param file the file
     * @param transfer the verified {@link #incomplete} file
     * @param outcome its check
     * @throws IOException when the disk cannot be written
     */
    void install(RemoteFile file, Path transfer, ContentCheck.Outcome outcome) throws IOException;

    /**
     * Records the files the model at this commit consists of (before they are fetched): a snapshot missing one of
     * them is incomplete.
     *
     * @param commit the commit
     * @param files the model's files
     * @throws IOException when the disk cannot be written
     */
    void expect(String commit, List<RemoteFile> files) throws IOException;
}
